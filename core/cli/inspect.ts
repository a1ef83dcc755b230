/** The commands that look at a host: the summary, `list`, `explain` and `call`. */
import { UsageError } from '../../boundary/errors.js';
import { didYouMean } from '../text/suggest.js';
import { visible } from '../text/visible.js';
import type { DefinitionFormat } from '../providers/index.js';
import type { CommandContext } from './context.js';
import { withHost } from './open-host.js';
import { renderExplain, renderSummary, renderTool } from './render.js';
import { cliApprover } from './approve.js';
import { logLine } from './log-line.js';
import { accessSummary, identityArgument, renderAccess, type AccessSummary } from './explain-as.js';
import type { HostReport } from '../explain/explain.js';
import type { ToolHost } from '../host/host.js';
import { configOf, inspectorOf, type SearchRanking } from '../host/inspector.js';
import type { Style } from './style.js';

/** `toolshed` (the summary) and `toolshed --json`. */
export function runSummary({ values, io }: CommandContext): Promise<number> {
  return withHost(values, io, { warn: false }, async (_host, report) => {
    io.out(values.json ? JSON.stringify(report, null, 2) : renderSummary(report, io.style));
    return 0;
  });
}

/** `toolshed list [--format F]`: the definitions JSON, or names one a line. */
export function runList({ values, io }: CommandContext): Promise<number> {
  const format = values.format ?? 'openai';
  return withHost(values, io, { warn: true }, async (host) => {
    if (format === 'names') {
      const defs = await host.definitions({ format: 'mcp' });
      io.out(defs.map((d) => d.name).join('\n'));
    } else {
      io.out(JSON.stringify(await host.definitions({ format: format as DefinitionFormat }), null, 2));
    }
    return 0;
  });
}

/** `toolshed explain [TOOL] [--as IDENTITY] [--json]`. */
export function runExplain({ args, values, io }: CommandContext): Promise<number> {
  const [name] = args;
  if (values.search !== undefined) return explainSearch(values.search, name, { values, io });
  return withHost(values, io, { warn: false }, async (host, hostReport) => {
    const as = values.as === undefined ? undefined : await explainAs(host, values.as);
    const report = as?.report ?? hostReport;
    const access = as ? { access: as.access } : {};
    if (name === undefined) {
      const text = () =>
        [...(as ? [renderAccess(as.access, io.style), ''] : []), renderExplain(report, io.style)].join('\n');
      io.out(values.json ? JSON.stringify({ ...access, ...report }, null, 2) : text());
      return 0;
    }
    const tool = report.tools.find((t) => t.name === name);
    if (!tool)
      throw new UsageError(
        `no tool named '${name}' is registered.${didYouMean(
          name,
          report.tools.map((t) => t.name),
        )}`,
      );
    const text = () =>
      [...(as ? [renderAccess(as.access, io.style), ''] : []), renderTool(tool, report, io.style)].join('\n');
    io.out(values.json ? JSON.stringify({ ...access, ...tool }, null, 2) : text());
    return 0;
  });
}

/** Tools a search shows at most. */
const SEARCH_SHOWN = 10;

/** `toolshed explain --search QUERY`: what tool_search finds among the exposed tools (deferred or not), and why. */
function explainSearch(
  query: string,
  name: string | undefined,
  { values, io }: Pick<CommandContext, 'values' | 'io'>,
): Promise<number> {
  if (name !== undefined) throw new UsageError(`explain takes a tool name or --search, not both`);
  if (!query.trim()) throw new UsageError(`--search needs a query: what the tool should do, in a few words`);
  return withHost(values, io, { warn: false }, async (host) => {
    const ranking = await inspectorOf(host).search(query, SEARCH_SHOWN);
    io.out(values.json ? JSON.stringify({ query, ...ranking }, null, 2) : renderSearch(query, ranking, io.style));
    return 0;
  });
}

/** Why a search found nothing. */
const NOTHING_MATCHED = "(no word of the query is in any tool's name, description, parameters or toolset)";

/** A search's ranking as text: each tool with its score, whether it is deferred, and what it matched. */
export function renderSearch(query: string, { results, indexed }: SearchRanking, s: Style): string {
  const head = `tool_search for ${JSON.stringify(query)}, over ${indexed} indexed tool${indexed === 1 ? '' : 's'}:`;
  if (!results.length) return `${head}\n  nothing matched ${NOTHING_MATCHED}`;
  const width = Math.max(...results.map((hit) => hit.name.length));
  const lines = results.map((hit, i) => {
    const where = hit.deferred ? s.dim('deferred') : s.dim('listed');
    const matched = Object.entries(hit.matched).map(([word, fields]) => `${word} (${fields.join(', ')})`);
    if (hit.related?.length) matched.push(`related: ${hit.related.join(', ')}`);
    return (
      `${String(i + 1).padStart(3)}. ${s.bold(hit.name.padEnd(width))}  ${hit.score.toFixed(3).padStart(7)}  ` +
      `${where}\n       ${matched.join(', ')}`
    );
  });
  return [head, ...lines].join('\n');
}

/** The report of `host.as(identity)` and what the identity gets; throws ACCESS_DENIED when no rule matches. */
async function explainAs(host: ToolHost, value: string): Promise<{ report: HostReport; access: AccessSummary }> {
  const identity = identityArgument(value, configOf(host));
  const view = host.as(identity);
  try {
    return { report: await view.refresh(), access: accessSummary(identity, configOf(host)) };
  } finally {
    await view.close();
  }
}

/** `toolshed call TOOL [ARGS_JSON | -]`: exit 0 with the result, 1 with the error envelope. */
export function runCall({ args, values, io }: CommandContext): Promise<number> {
  const [name, rawArgs] = args;
  if (!name) throw new UsageError('call needs a tool name: toolshed call TOOL [ARGS_JSON | -]');
  const input = rawArgs === '-' ? io.readStdin() : (rawArgs ?? '{}');
  return withHost(values, io, { warn: true }, async (host) => {
    // The plugins' ctx.log lines and MCP servers' log messages (the called tool's, the tools it calls, checks) are for
    // the person running this: stderr.
    if (!values.quiet) host.on('log', (entry) => io.err(logLine(entry)));
    const outcome = await host.call(name, input, { onApproval: cliApprover(values, io) });
    // A tool's text shown on a terminal has every control character as text (its colour codes too); piped, it is exact.
    const text = outcome.ok ? outcome.text : JSON.stringify({ error: outcome.message, code: outcome.code });
    io.out(io.outIsTTY ? visible(text) : text);
    return outcome.ok ? 0 : 1;
  });
}
