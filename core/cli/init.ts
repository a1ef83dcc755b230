/** `toolshed init`: writes a starter config that editors can validate through `$schema`. */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandContext } from './commands.js';

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

/** Writes `.toolshedrc.json` in `cwd`; refuses to overwrite unless `force`. */
export async function runInit(options: { cwd: string; force: boolean; out(text: string): void }): Promise<number> {
  const file = path.join(options.cwd, '.toolshedrc.json');
  if (existsSync(file) && !options.force) {
    process.stderr.write(`toolshed: ${file} already exists; pass --force to overwrite it\n`);
    return 1;
  }
  writeFileSync(file, `${JSON.stringify(starterConfig(), null, 2)}\n`);
  options.out(`wrote ${path.relative(options.cwd, file) || file}. Add plugin packages with npm install, list them under "plugins", and run toolshed to see what is exposed.`);
  return 0;
}

/** `toolshed init [--force]`. */
export function runInitCommand({ values, io }: CommandContext): Promise<number> {
  return runInit({ cwd: process.cwd(), force: values.force === true, out: io.out });
}
