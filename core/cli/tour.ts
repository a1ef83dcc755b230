/**
 * `toolshed tour` (what `npm start` runs): the summary of the embedded
 * default, then a few real tool calls executed in the plugins' workers, each
 * with its result and where it ran.
 */
import { performance } from 'node:perf_hooks';
import { createToolHost } from '../host.js';
import { renderSummary } from './render.js';

interface TourCall {
  why: string;
  tool: string;
  args: unknown;
  sessionId?: string;
}

const CALLS: TourCall[] = [
  { why: 'read the first lines of a file (numbered LINE|CONTENT)', tool: 'read_file', args: { path: 'README.md', limit: 6 } },
  { why: 'search file contents by regex within a glob', tool: 'search_files', args: { pattern: 'createToolHost', glob: 'core/**/*.ts', limit: 4 } },
  { why: 'run a shell command with a timeout', tool: 'terminal', args: { command: 'echo "hello from $0"; uname -s', timeoutMs: 5000 } },
  { why: 'keep a task list for this session', tool: 'todo_write', args: { todos: [{ content: 'read the README', status: 'done' }, { content: 'write a plugin', status: 'in_progress' }] }, sessionId: 'tour' },
  {
    why: 'one script calling several tools inside the QuickJS sandbox',
    tool: 'execute_code',
    args: {
      code: [
        "const listing = await tools.search_files({ glob: 'plugins/*/package.json' });",
        "const paths = listing.split('\\n').filter((line) => line.endsWith('package.json'));",
        'const names = [];',
        'for (const path of paths) {',
        '  const line = await tools.read_file({ path, offset: 2, limit: 1 });',
        "  names.push(JSON.parse(`{${line.split('|')[1].split('\\n')[0].replace(/,\\s*$/, '')}}`).name);",
        '}',
        'console.log(`read ${paths.length} package.json files`);',
        'return names;',
      ].join('\n'),
    },
  },
  { why: 'a tool hidden by an availability check (no API key) cannot be called', tool: 'web_search', args: { query: 'toolshed' } },
  { why: 'bad arguments come back as a JSON pointer and what was expected', tool: 'read_file', args: { path: 42, extra: true } },
  { why: 'an unknown name gets a did-you-mean', tool: 'read_fil', args: {} },
];

function indent(text: string, max = 700): string {
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
  return cut
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/** Prints the summary and runs the tour's calls; returns the exit code. */
export async function runTour(options: { out(text: string): void; config?: string }): Promise<number> {
  const { out } = options;
  // The tour shows the embedded default unless a config file is named explicitly.
  const host = await createToolHost({ cwd: process.cwd(), config: options.config ?? {} });
  try {
    const report = await host.refresh();
    out(renderSummary(report));
    out('');
    out('Tool calls, each executed in its plugin\'s worker pool (never on this thread):');
    for (const call of CALLS) {
      const started = performance.now();
      const outcome = await host.call(call.tool, call.args, call.sessionId ? { sessionId: call.sessionId } : {});
      const ms = Math.round(performance.now() - started);
      const owner = report.tools.find((t) => t.name === call.tool);
      const where = owner ? `${owner.plugin}, thread tier` : 'not registered';
      out('');
      const { code, ...rest } = call.args as { code?: unknown };
      out(`▸ ${call.tool} ${typeof code === 'string' ? `(script)\n${indent(code)}` : JSON.stringify(rest)}`);
      out(`  ${call.why} — ${outcome.ok ? 'ok' : outcome.code} in ${ms} ms (${where})`);
      out(indent(outcome.ok ? outcome.text : JSON.stringify({ error: outcome.message, code: outcome.code })));
    }
    const after = host.explain();
    const pools = after.plugins.filter((p) => p.pool?.started).map((p) => `${p.name} (${p.pool!.completed} tasks)`);
    out('');
    out(`worker pools started on demand: ${pools.join(', ') || 'none'}`);
    return 0;
  } finally {
    await host.close();
  }
}
