/**
 * The calls `toolshed tour` makes, chosen for the workspace it runs in: the
 * file it reads and the files it lists exist in the root, so the tour works
 * in any app, not only in toolshed's own repository.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** One call of the tour, with why it is shown. */
interface TourCall {
  why: string;
  tool: string;
  args: Record<string, unknown>;
  sessionId?: string;
}

const PREFERRED = ['README.md', 'readme.md', 'README', 'package.json'];

/**
 * A small text file in `root` for read_file to read: the README or package.json when present, else the first regular
 * file.
 */
function pickFile(root: string): string | undefined {
  let entries: string[];
  try {
    entries = readdirSync(root).sort();
  } catch {
    return undefined;
  }
  const isFile = (name: string) => {
    try {
      return statSync(path.join(root, name)).isFile();
    } catch {
      return false;
    }
  };
  return (
    PREFERRED.find((name) => entries.includes(name) && isFile(name)) ??
    entries.find((name) => !name.startsWith('.') && isFile(name))
  );
}

/** The tour's calls for a workspace `root`. */
export function tourCalls(root: string): TourCall[] {
  const file = pickFile(root);
  const calls: TourCall[] = [];
  if (file) {
    calls.push({
      why: 'read the first lines of a file in the workspace (numbered LINE|CONTENT)',
      tool: 'read_file',
      args: { path: file, limit: 6 },
    });
    const ext = path.extname(file).toLowerCase();
    const pattern = ext === '.md' ? '^#{1,3} ' : ext === '.json' ? '"(name|version)"' : '\\w+';
    calls.push({ why: 'search file contents by regex', tool: 'search_files', args: { pattern, path: file, limit: 4 } });
  }
  calls.push(
    {
      why: 'run a shell command in the workspace with a timeout',
      tool: 'terminal',
      args: { command: 'echo "hello from $0 in $(basename "$PWD")"', timeoutMs: 5000 },
    },
    {
      why: 'keep a task list for this session',
      tool: 'todo_write',
      args: {
        todos: [
          { content: 'take the tour', status: 'done' },
          { content: 'write a plugin', status: 'in_progress' },
        ],
      },
      sessionId: 'toolshed-tour',
    },
    {
      why: 'one script calling several tools inside the QuickJS sandbox',
      tool: 'execute_code',
      args: {
        code: [
          "const listing = await tools.search_files({ glob: '*.{md,json}', limit: 5 });",
          "const files = listing.split('\\n').filter((line) => line && !line.startsWith('['));",
          'const firstLines = [];',
          'for (const file of files.slice(0, 3)) {',
          '  const text = await tools.read_file({ path: file, limit: 1 });',
          "  firstLines.push(`${file}: ${text.split('\\n')[0]}`);",
          '}',
          'console.log(`listed ${files.length} files`);',
          'return firstLines;',
        ].join('\n'),
      },
    },
    {
      why: "what the host would run stays read-only to the model's tools, even a config file that does not exist yet",
      tool: 'write_file',
      args: { path: '.toolshedrc.mjs', content: 'export default {};\n' },
    },
    {
      why: 'a tool hidden by an availability check (no API key) cannot be called',
      tool: 'web_search',
      args: { query: 'toolshed' },
    },
    {
      why: 'bad arguments come back as a JSON pointer and what was expected',
      tool: 'read_file',
      args: { path: 42, extra: true },
    },
    { why: 'an unknown name gets a did-you-mean', tool: 'read_fil', args: {} },
  );
  return calls;
}
