/**
 * The `toolshed` command line. Usage errors exit 2 with one line on stderr;
 * host-level errors exit 1 with their code; `call` exits 1 when the result
 * is an error envelope.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createToolHost, type ToolHost } from '../host.js';
import { ToolshedError, UsageError } from '../errors.js';
import { FORMATS, type DefinitionFormat } from '../providers/index.js';
import { renderExplain, renderSummary, renderTool } from './render.js';
import { runInit } from './init.js';
import { runTour } from './tour.js';
import { didYouMean } from '../suggest.js';

const COMMANDS = ['list', 'explain', 'call', 'serve', 'init', 'tour', 'help'] as const;

/** `toolshed --help` text. */
export const USAGE = `Usage: toolshed [command] [options]

Commands:
  (none)                      summary: plugins, toolsets, layer counts, hidden tools and why
  list [--format F]           the tool definitions JSON; F = ${FORMATS.join(' | ')} | names
  explain [TOOL] [--json]     each tool's state and the reason
  call TOOL [ARGS_JSON | -]   run one tool call and print the result the model would get
  serve [--http HOST:PORT] [--watch]
                              MCP server (stdio by default); --watch reloads the
                              config and plugins when their files change
  init [--force]              write a starter .toolshedrc.json
  tour                        the summary plus a few real calls (what npm start runs)

Options:
  --config FILE               use this config instead of searching
  --enable a,b                toolsets to enable (overrides config)
  --disable x,y               toolsets or tools to disable (overrides config)
  --json                      machine-readable output
  -h, --help                  this text`;

interface Parsed {
  command: string | undefined;
  positionals: string[];
  values: { config?: string; enable?: string; disable?: string; json?: boolean; format?: string; http?: string; help?: boolean; force?: boolean; watch?: boolean };
}

function parse(argv: string[]): Parsed {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        enable: { type: 'string' },
        disable: { type: 'string' },
        json: { type: 'boolean' },
        format: { type: 'string' },
        http: { type: 'string' },
        force: { type: 'boolean' },
        watch: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [command, ...positionals] = parsed.positionals;
  if (command !== undefined && !(COMMANDS as readonly string[]).includes(command)) {
    throw new UsageError(`unknown command '${command}'.${didYouMean(command, COMMANDS)} Run toolshed --help.`);
  }
  return { command, positionals, values: parsed.values };
}

const list = (value: string | undefined) => (value === undefined ? undefined : value.split(',').map((s) => s.trim()).filter(Boolean));

async function openHost(values: Parsed['values']): Promise<ToolHost> {
  const overrides: { enable?: string[]; disable?: string[] } = {};
  const enable = list(values.enable);
  const disable = list(values.disable);
  if (enable) overrides.enable = enable;
  if (disable) overrides.disable = disable;
  return createToolHost({ cwd: process.cwd(), ...(values.config ? { config: values.config } : {}), overrides });
}

function readStdin(): string {
  return readFileSync(0, 'utf8');
}

async function withHost<T>(values: Parsed['values'], fn: (host: ToolHost) => Promise<T>): Promise<T> {
  const host = await openHost(values);
  try {
    return await fn(host);
  } finally {
    await host.close();
  }
}

async function run(parsed: Parsed, out: (text: string) => void): Promise<number> {
  const { command, positionals, values } = parsed;
  if (values.help || command === 'help') {
    out(USAGE);
    return 0;
  }
  switch (command) {
    case undefined:
      return withHost(values, async (host) => {
        const report = await host.refresh();
        out(values.json ? JSON.stringify(report, null, 2) : renderSummary(report));
        return 0;
      });
    case 'list': {
      const format = values.format ?? 'openai';
      if (format !== 'names' && !FORMATS.includes(format as DefinitionFormat)) {
        throw new UsageError(`unknown --format '${format}'; use one of ${[...FORMATS, 'names'].join(', ')}`);
      }
      return withHost(values, async (host) => {
        if (format === 'names') {
          const defs = (await host.definitions({ format: 'mcp' })) as Array<{ name: string }>;
          out(defs.map((d) => d.name).join('\n'));
        } else {
          out(JSON.stringify(await host.definitions({ format: format as DefinitionFormat }), null, 2));
        }
        return 0;
      });
    }
    case 'explain':
      return withHost(values, async (host) => {
        const report = await host.refresh();
        const [name] = positionals;
        if (name === undefined) {
          out(values.json ? JSON.stringify(report, null, 2) : renderExplain(report));
          return 0;
        }
        const tool = report.tools.find((t) => t.name === name);
        if (!tool) throw new UsageError(`no tool named '${name}' is registered.${didYouMean(name, report.tools.map((t) => t.name))}`);
        out(values.json ? JSON.stringify(tool, null, 2) : renderTool(tool, report));
        return 0;
      });
    case 'call': {
      const [name, rawArgs] = positionals;
      if (!name) throw new UsageError('call needs a tool name: toolshed call TOOL [ARGS_JSON | -]');
      const args = rawArgs === '-' ? readStdin() : (rawArgs ?? '{}');
      return withHost(values, async (host) => {
        const outcome = await host.call(name, args);
        out(outcome.ok ? outcome.text : JSON.stringify({ error: outcome.message, code: outcome.code }));
        return outcome.ok ? 0 : 1;
      });
    }
    case 'init':
      return runInit({ cwd: process.cwd(), force: values.force === true, out });
    case 'tour':
      return runTour({ out, ...(values.config ? { config: values.config } : {}) });
    case 'serve': {
      const { runServe } = await import('./serve.js');
      return runServe({ values, openHost: () => openHost(values), out });
    }
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

/** Runs the CLI and returns the exit code; output goes to stdout, errors to stderr. */
export async function main(argv: string[]): Promise<number> {
  const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  try {
    return await run(parse(argv), out);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`toolshed: ${error.message}\n`);
      return 2;
    }
    if (error instanceof ToolshedError) {
      process.stderr.write(`toolshed: ${error.code}: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`toolshed: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    return 1;
  }
}
