// @ts-check
import { patchTool } from './lib/patch.js';
import { readFileTool } from './lib/read-file.js';
import { searchFilesTool } from './lib/search-files.js';
import { writeFileTool } from './lib/write-file.js';

/** The `file` toolset: read, write, patch and search files under the host's working directory. */
export default {
  apiVersion: 1,
  toolsets: { file: { description: 'Read, write, patch and search files' } },
  permissions: { network: false, env: [], fsRead: ['.'], fsWrite: ['.'] },
  tools: [readFileTool, writeFileTool, patchTool, searchFilesTool],
};
