/**
 * `toolshed trust`: the operator's decision on a config the model's tools could
 * have written. It shows what changed since the config was last accepted (a
 * line diff of the config, and which code it runs changed) and records what is
 * there now, so the next start runs it.
 */
import path from 'node:path';
import { loadHostConfig } from '../config/host-config.js';
import type { TrustOutcome } from '../config/config-trust.js';
import type { CommandContext } from './context.js';
import { lineDiff } from '../text/line-diff.js';
import { hostOptions } from './open-host.js';

/** A path as the person typed it: relative to the current folder `cwd` when below it. */
function shown(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? `./${rel}` : file;
}

/** The lines `toolshed trust` prints for an outcome, for a command run in `cwd`. */
export function trustReport(outcome: TrustOutcome, cwd: string = process.cwd()): string[] {
  const { key, state, previous, changes } = outcome;
  const what = state.file === null ? `no config in ${shown(key, cwd)}` : shown(state.file, cwd);
  if (!outcome.applies)
    return [`nothing to trust: ${what} lies outside every folder the model's tools can write, so it needs no record`];
  if (!previous)
    return [
      `accepted ${what} (the first record for this workspace); toolshed stops if it changes until you run ` +
        `toolshed trust again`,
    ];
  if (changes.length === 0)
    return [`nothing to trust: ${what} is as accepted${previous.acceptedAt ? ` on ${previous.acceptedAt}` : ''}`];
  const out = ['changed since it was last accepted:', ...changes.map((c) => `  ${c}`)];
  const diff = lineDiff(previous.text ?? '', state.text ?? '');
  if (diff.length)
    out.push(
      '',
      `--- accepted ${previous.file === null ? '(no config)' : shown(previous.file, cwd)}`,
      `+++ now ${state.file === null ? '(no config)' : shown(state.file, cwd)}`,
      ...diff,
    );
  out.push('', `accepted ${what}: the next start runs it`);
  return out;
}

/** `toolshed trust [--config FILE] [--root DIR]`. */
export async function runTrustCommand({ values, io }: CommandContext): Promise<number> {
  const here = io.cwd ?? process.cwd();
  const options = hostOptions(values, {}, here);
  const cwd = path.resolve(options.cwd ?? options.root ?? here);
  const { trust } = await loadHostConfig({ ...options, trust: 'accept' }, cwd);
  if (!trust) return 0;
  for (const line of trustReport(trust, here)) io.out(line);
  return 0;
}
