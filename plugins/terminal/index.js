// @ts-check
import { terminalTool } from './lib/terminal.js';

/**
 * The `terminal` toolset: run shell commands in the workspace, in a bubblewrap sandbox where one can be had
 * (options.sandbox).
 */
export default {
  apiVersion: 1,
  toolsets: { terminal: { description: 'Run shell commands' } },
  // Shell commands routinely need the network (npm install, git fetch) and a few harmless
  // variables (HOME for git/npm config, LANG for UTF-8 output); nothing secret is asked for.
  // In the sandbox they get the network only with options.network. The two launcher switches
  // let the sandbox see the same machine the host's explain sees.
  permissions: {
    network: true,
    env: [
      'PATH',
      'HOME',
      'USER',
      'LANG',
      'LC_ALL',
      'TZ',
      'TMPDIR',
      'TOOLSHED_SANDBOX_BWRAP',
      'TOOLSHED_SANDBOX_NAMESPACES',
    ],
    fsRead: ['.'],
    fsWrite: ['.'],
  },
  tools: [terminalTool],
};
