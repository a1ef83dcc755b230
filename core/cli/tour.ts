/**
 * `toolshed tour` (what `npm start` runs in this repository): the summary of
 * the host the user's config describes (or the embedded default), then a few
 * real tool calls in the workspace root, each executed in its plugin's
 * workers, with its result and where it ran. Calls to tools the config does
 * not expose are skipped with the reason. The tour writes nothing of its own:
 * only what the tools it calls write (the todo list lives in the host's state store, in memory by default).
 */
import { performance } from 'node:perf_hooks';
import type { CommandContext } from './context.js';
import { withHost } from './open-host.js';
import { renderSummary } from './render.js';
import { tourCalls } from './tour-calls.js';

function indent(text: string, max = 700): string {
  const cut = text.length > max ? `${text.slice(0, max)}... (${text.length} chars)` : text;
  return cut
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/** Prints the summary and runs the tour's calls; returns the exit code. */
export function runTourCommand({ values, io }: CommandContext): Promise<number> {
  return withHost(values, io, { warn: false }, async (host, report) => {
    const s = io.style;
    io.out(renderSummary(report, s));
    io.out('');
    io.out(
      s.bold(`Tool calls in ${report.config.root}, each executed in its plugin's workers (never on this thread):`),
    );
    for (const call of tourCalls(report.config.root)) {
      const tool = report.tools.find((t) => t.name === call.tool);
      const { code, ...rest } = call.args as { code?: unknown };
      io.out('');
      io.out(
        `${s.arrow} ${s.bold(call.tool)} ` +
          `${typeof code === 'string' ? `(script)\n${indent(code)}` : JSON.stringify(rest)}`,
      );
      // A demonstration of a failure runs whatever the state; a call meant to succeed needs its tool exposed.
      const demonstratesFailure = !tool || call.args.extra !== undefined || call.tool === 'web_search';
      if (tool && !tool.exposed && !demonstratesFailure) {
        io.out(`  ${call.why} ${s.dash} ${s.yellow('skipped')}: not exposed here (${tool.reason})`);
        continue;
      }
      const started = performance.now();
      const outcome = await host.call(call.tool, call.args, call.sessionId ? { sessionId: call.sessionId } : {});
      const ms = Math.round(performance.now() - started);
      const plugin = tool ? report.plugins.find((p) => p.name === tool.plugin) : undefined;
      const where = plugin ? `${plugin.name}, ${plugin.tier} tier` : 'not registered';
      io.out(`  ${call.why} ${s.dash} ${outcome.ok ? s.green('ok') : s.yellow(outcome.code)} in ${ms} ms (${where})`);
      io.out(indent(outcome.ok ? outcome.text : JSON.stringify({ error: outcome.message, code: outcome.code })));
    }
    const after = host.explain();
    const pools = after.plugins.filter((p) => p.pool?.started).map((p) => `${p.name} (${p.pool!.completed} tasks)`);
    io.out('');
    io.out(`worker pools started on demand: ${pools.join(', ') || 'none'}`);
    return 0;
  });
}
