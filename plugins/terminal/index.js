// @ts-check
import { terminalTool } from './lib/terminal.js';

/** The `terminal` toolset: run shell commands in the host's working directory. */
export default {
  apiVersion: 1,
  toolsets: { terminal: { description: 'Run shell commands' } },
  // Shell commands routinely need the network (npm install, git fetch) and a few harmless
  // variables (HOME for git/npm config, LANG for UTF-8 output); nothing secret is asked for.
  permissions: {
    network: true,
    env: ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'],
    fsRead: ['.'],
    fsWrite: ['.'],
  },
  tools: [terminalTool],
};
