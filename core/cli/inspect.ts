/** The commands that look at a host: the summary, `list`, `explain` and `call`. */
import { UsageError } from '../../boundary/errors.js';
import { didYouMean } from '../text/suggest.js';
import type { DefinitionFormat } from '../providers/index.js';
import type { CommandContext } from './context.js';
import { withHost } from './open-host.js';
import { renderExplain, renderSummary, renderTool } from './render.js';
import { cliApprover } from './approve.js';

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

/** `toolshed explain [TOOL] [--json]`. */
export function runExplain({ args, values, io }: CommandContext): Promise<number> {
  const [name] = args;
  return withHost(values, io, { warn: false }, async (_host, report) => {
    if (name === undefined) {
      io.out(values.json ? JSON.stringify(report, null, 2) : renderExplain(report, io.style));
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
    io.out(values.json ? JSON.stringify(tool, null, 2) : renderTool(tool, report, io.style));
    return 0;
  });
}

/** `toolshed call TOOL [ARGS_JSON | -]`: exit 0 with the result, 1 with the error envelope. */
export function runCall({ args, values, io }: CommandContext): Promise<number> {
  const [name, rawArgs] = args;
  if (!name) throw new UsageError('call needs a tool name: toolshed call TOOL [ARGS_JSON | -]');
  const input = rawArgs === '-' ? io.readStdin() : (rawArgs ?? '{}');
  return withHost(values, io, { warn: true }, async (host) => {
    // The plugins' ctx.log lines (the called tool's, the tools it calls, checks) are for the person running this: stderr.
    host.on('log', (entry) => io.err(`[${entry.plugin}${entry.tool ? `/${entry.tool}` : ''}] ${entry.message}`));
    const outcome = await host.call(name, input, { onApproval: cliApprover(values, io) });
    io.out(outcome.ok ? outcome.text : JSON.stringify({ error: outcome.message, code: outcome.code }));
    return outcome.ok ? 0 : 1;
  });
}
