/**
 * Opening the host a command works on, from the host flags: `--config`,
 * `--root`, `--enable`, `--disable`, `--trust-config` and `--strict`. Notes the
 * host has for the person (config trust on first use) go to stderr. A start that takes more
 * than half a second says so on stderr, once.
 */
import path from 'node:path';
import { createToolHost, type ToolHost, type ToolHostOptions } from '../host/host.js';
import type { HostReport } from '../explain/explain.js';
import type { CliValues } from './context.js';
import type { CliIo } from './io.js';

/** How long a start may take before the progress note appears. */
const PROGRESS_AFTER_MS = 500;

const names = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/**
 * createToolHost options from the host flags, for a command run in `cwd`; `--root` also starts the config search there.
 */
export function hostOptions(
  values: CliValues,
  extra: Partial<ToolHostOptions> = {},
  cwd: string = process.cwd(),
): ToolHostOptions {
  const overrides: { enable?: string[]; disable?: string[] } = {};
  const enable = names(values.enable);
  const disable = names(values.disable);
  if (enable) overrides.enable = enable;
  if (disable) overrides.disable = disable;
  const root = values.root === undefined ? undefined : path.resolve(cwd, values.root);
  return {
    cwd,
    ...(root !== undefined ? { root, cwd: root } : {}),
    ...(values.config !== undefined ? { config: values.config, cwd } : {}),
    ...(values.trustConfig === true ? { trustConfig: true } : {}),
    overrides,
    ...extra,
  };
}

/** Opens a host, with the progress note on a slow start when a person is watching stderr. */
export async function openHost(values: CliValues, io: CliIo, extra: Partial<ToolHostOptions> = {}): Promise<ToolHost> {
  const note =
    `toolshed: loading plugins${io.errStyle.ellipsis} (a first run extracts their manifests; later runs read ` +
    `them from the cache)`;
  const timer = io.errIsTTY ? setTimeout(() => io.err(note), PROGRESS_AFTER_MS) : undefined;
  timer?.unref();
  try {
    return await createToolHost(
      hostOptions(
        values,
        {
          onNotice: (message) => io.err(`toolshed: ${message}`),
          ...(io.env !== undefined ? { env: io.env } : {}),
          ...extra,
        },
        io.cwd,
      ),
    );
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** The plugins that failed to load, one line each: `name (CODE: message)`. */
export function failedPlugins(report: HostReport): string[] {
  return report.plugins
    .filter((p) => p.status === 'failed')
    .map((p) => `${p.name} (${p.error?.code}: ${p.error?.message})`);
}

/** Grants of untrusted plugins that match nothing they request, one line each: `name: what`. */
function unmatchedGrants(report: HostReport): string[] {
  return report.plugins.flatMap((p) => (p.permissions?.unmatched ?? []).map((note) => `${p.name}: ${note}`));
}

/**
 * `--strict`: exit 1 when a plugin failed to load or a grant matches nothing its plugin
 * requests. Without it, commands whose stdout does not show plugins (list, call) warn about
 * them on stderr. Returns the exit code to stop with, or undefined to go on.
 */
function strictGate(report: HostReport, values: CliValues, io: CliIo, warn: boolean): number | undefined {
  const failed = failedPlugins(report);
  const grants = unmatchedGrants(report);
  if (failed.length === 0 && grants.length === 0) return undefined;
  const list = (lines: string[], mark: string) => lines.map((f) => `  ${mark} ${f}`).join('\n');
  const problems = [
    ...(failed.length
      ? [
          {
            head: `${failed.length} plugin${failed.length === 1 ? '' : 's'} failed to load`,
            hint: ' (toolshed explain shows their toolsets and tools)',
            body: list(failed, io.errStyle.red(io.errStyle.fail)),
          },
        ]
      : []),
    ...(grants.length
      ? [
          {
            head:
              `${grants.length} grant${grants.length === 1 ? '' : 's'} match${grants.length === 1 ? 'es' : ''} ` +
              `nothing the plugin requests`,
            hint: '',
            body: list(grants, io.errStyle.yellow(io.errStyle.warn)),
          },
        ]
      : []),
  ];
  if (values.strict) {
    for (const p of problems) io.err(`toolshed: --strict: ${p.head}:\n${p.body}`);
    return 1;
  }
  if (warn) for (const p of problems) io.err(`toolshed: warning: ${p.head}${p.hint}:\n${p.body}`);
  return undefined;
}

/** Opens a host, applies --strict, runs `fn`, and always closes the host. */
export async function withHost(
  values: CliValues,
  io: CliIo,
  options: { warn: boolean },
  fn: (host: ToolHost, report: HostReport) => Promise<number>,
): Promise<number> {
  const host = await openHost(values, io);
  try {
    const report = await host.refresh();
    const stop = strictGate(report, values, io, options.warn);
    if (stop !== undefined) return stop;
    return await fn(host, report);
  } finally {
    await host.close();
  }
}
