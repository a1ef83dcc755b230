/**
 * `toolshed init`: writes a starter config that editors can validate through
 * `$schema`, optionally with the MCP servers of a Claude Desktop config, and
 * accepts it for config trust (the person running init wrote it).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../boundary/errors.js';
import { validateConfigObject } from '../config/config.js';
import type { CommandContext } from './context.js';

/** The starter config's content. */
export function starterConfig(): Record<string, unknown> {
  return {
    $schema: './node_modules/toolshed/config.schema.json',
    plugins: [],
    builtins: true,
    enable: ['all'],
    disable: [],
    checks: { ttlMs: 30000, graceMs: 60000, timeoutMs: 5000 },
    limits: { timeoutMs: 60000, maxResultChars: 100000, memoryMb: 256, maxQueue: 64 },
  };
}

/** The `mcpServers` of a desktop client's config, with the lines that tell the operator what changed. */
async function desktopServers(
  file: string,
  cwd: string,
): Promise<{ servers: Record<string, unknown>; lines: string[] }> {
  const { importClaudeDesktop } = await import('../mcp-client/claude-desktop.js');
  const source = path.resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`, { file: source });
  }
  const { servers, notes } = importClaudeDesktop(text, source);
  const names = Object.keys(servers);
  const lines = [
    `imported ${names.length} MCP server${names.length === 1 ? '' : 's'} from ${file}: ${names.join(', ') || 'none'}.`,
    ...notes.map((note) => `  note: ${note}`),
  ];
  if (names.length) {
    lines.push(
      'They start untrusted: in the sandbox, with only the env written in their entries (copied here, secrets ' +
        'included) and no grants.',
    );
    lines.push(
      'Run toolshed to see each one connected or why not; add grants (network, env, fsRead, fsWrite) where a ' +
        'server needs them (docs/mcp-servers.md).',
    );
  }
  return { servers, lines };
}

/**
 * Writes `.toolshedrc.json` in `cwd` (with the servers of a desktop client's config when `fromClaudeDesktop` names one)
 * and accepts it for config trust; refuses to overwrite unless `force`.
 */
export async function runInit(options: {
  cwd: string;
  force: boolean;
  fromClaudeDesktop?: string;
  out(text: string): void;
}): Promise<number> {
  const file = path.join(options.cwd, '.toolshedrc.json');
  if (existsSync(file) && !options.force) {
    process.stderr.write(`toolshed: ${file} already exists; pass --force to overwrite it\n`);
    return 1;
  }
  const config = starterConfig();
  const imported =
    options.fromClaudeDesktop === undefined ? undefined : await desktopServers(options.fromClaudeDesktop, options.cwd);
  if (imported) {
    config.mcpServers = imported.servers;
    // What is written must load: the same validation a host runs.
    validateConfigObject(config, file);
  }
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  options.out(
    `wrote ${path.relative(options.cwd, file) || file}. Add plugin packages with npm install, list them under ` +
      `"plugins", and run toolshed to see what is exposed.`,
  );
  for (const line of imported?.lines ?? []) options.out(line);
  // The operator just wrote it: accept it as this folder's config, or a "no config here" record would refuse it.
  const { loadHostConfig } = await import('../config/host-config.js');
  const { trust } = await loadHostConfig({ trust: 'accept' }, options.cwd);
  if (trust?.applies)
    options.out(
      "Accepted it as this folder's config (config trust): toolshed stops if it changes, until you review the " +
        'change with toolshed trust.',
    );
  return 0;
}

/** `toolshed init [--force] [--from-claude-desktop FILE]`. */
export function runInitCommand({ values, io }: CommandContext): Promise<number> {
  return runInit({
    cwd: io.cwd ?? process.cwd(),
    force: values.force === true,
    ...(values.fromClaudeDesktop !== undefined ? { fromClaudeDesktop: values.fromClaudeDesktop } : {}),
    out: io.out,
  });
}
