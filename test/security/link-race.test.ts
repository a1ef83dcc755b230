/**
 * A link race against the first-party file tools, driven by tool calls alone:
 * the sandboxed terminal (which sees only the workspace) keeps exchanging a
 * folder `inside/` with a symbolic link to a folder outside the workspace
 * (renameat2 RENAME_EXCHANGE), while many parallel read_file and write_file
 * calls (and some patch and search_files calls) go to `inside/…`. Checking a path and then opening it again by path
 * loses this race; the file tools must read and write the very object they
 * checked, so no read returns the outside file and nothing outside is created or changed.
 */
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { probeSandbox } from '#internal/boundary/launch/probe.js';
import { tempDir } from '../helpers.js';

/** Tool calls in all, in the fixed mix of kindOf. */
const ATTEMPTS = 10_000;
/** Calls in flight at once. */
const PARALLEL = 16;
/** A ceiling for the swapper, far above what the calls need; it normally stops at the stop file. */
const MAX_SWAPS = 200_000_000;
/** renameat2 on x86_64 and arm64 (asm/unistd_64.h, asm-generic/unistd.h); AT_FDCWD is -100, RENAME_EXCHANGE is 2. */
const RENAMEAT2 = process.arch === 'arm64' ? 276 : 316;
const OUTSIDE_TEXT = 'OUTSIDE SECRET';
const OUTSIDE_PATCHABLE = `x ${OUTSIDE_TEXT}\n`;

let work: ReturnType<typeof tempDir>;
let ws: string;
let outside: string;
let host: ToolHost;
let swapper: Promise<string> | undefined;

/** The perl loop the terminal runs: exchange `inside` and `link` until `swapper.stop` appears. */
const swapScript = [
  'open(my $f, ">", "swapper.started") or die; close $f;',
  // syscall() may write to its string arguments, so they are variables, not literals.
  'my ($n, $a, $b) = (0, "inside", "link");',
  `while ($n < ${MAX_SWAPS} && !-e "swapper.stop") {`,
  `  syscall(${RENAMEAT2}, -100, $a, -100, $b, 2) == 0 or die "renameat2: $!";`,
  '  $n++;',
  '}',
  'print "swaps=$n\\n";',
].join(' ');

const stopSwapper = async () => {
  if (!swapper) return '';
  writeFileSync(path.join(ws, 'swapper.stop'), '');
  const out = await swapper;
  swapper = undefined;
  return out;
};

beforeAll(async () => {
  work = tempDir('toolshed-link-race-');
  ws = path.join(work.dir, 'workspace');
  outside = path.join(work.dir, 'outside');
  mkdirSync(path.join(ws, 'inside'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(ws, 'inside', 'f.txt'), 'INSIDE\n');
  writeFileSync(path.join(ws, 'inside', 'p.txt'), 'x\n');
  writeFileSync(path.join(outside, 'f.txt'), `${OUTSIDE_TEXT}\n`);
  writeFileSync(path.join(outside, 'p.txt'), OUTSIDE_PATCHABLE);
  symlinkSync(outside, path.join(ws, 'link'));
  host = await createToolHost({
    cwd: work.dir,
    root: ws,
    env: { PATH: process.env.PATH },
    config: { enable: ['file', 'terminal'], cache: { enabled: false } },
  });
});
afterAll(async () => {
  await stopSwapper().catch(() => undefined);
  await host?.close();
  work.cleanup();
});

/** Runs `calls` with at most PARALLEL in flight, each with its own deadline. */
async function runAll(calls: Array<() => Promise<void>>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < calls.length) await calls[next++]!();
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
}

const parse = (text: string): { code?: string; error?: string } | undefined => {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Which tool call number `i` is: a fixed pattern of 40 (16 reads, 14 writes, 4 writes that make a folder, 3 patches, 3
 * searches).
 */
function kindOf(i: number): 'read' | 'write' | 'nested' | 'patch' | 'search' {
  const k = i % 40;
  return k < 16 ? 'read' : k < 30 ? 'write' : k < 34 ? 'nested' : k < 37 ? 'patch' : 'search';
}

describe('file tools under a link race (terminal swaps a folder with a link to outside)', () => {
  it('never read the outside file and never create or change anything outside', async () => {
    const command = `test -e ${JSON.stringify(outside)} && echo outside-visible || echo outside-hidden; perl -e '${swapScript}'`;
    swapper = host.dispatch('terminal', { command, timeoutMs: 540_000 });
    // The swapper says it is running by a file the file tools can read; wait until it can be read.
    await expect
      .poll(async () => parse(await host.dispatch('read_file', { path: 'swapper.started' })), { timeout: 30_000 })
      .toBeFalsy();

    const counts = { done: 0, refused: 0, leaked: 0, other: 0 };
    const byKind: Record<string, { done: number; refused: number; leaked: number; other: number }> = {};
    const others = new Set<string>();
    const tally = (kind: string, outcome: keyof typeof counts, text: string) => {
      counts[outcome]++;
      (byKind[kind] ??= { done: 0, refused: 0, leaked: 0, other: 0 })[outcome]++;
      if (outcome === 'other') others.add(text.slice(0, 200));
    };
    const signal = () => AbortSignal.timeout(30_000);
    const calls: Array<() => Promise<void>> = [];
    for (let i = 0; i < ATTEMPTS; i++) {
      const kind = kindOf(i);
      const [name, args] =
        kind === 'read'
          ? ['read_file', { path: 'inside/f.txt' }]
          : kind === 'write'
            ? ['write_file', { path: `inside/w-${i}.txt`, content: `written ${i}\n` }]
            : kind === 'nested'
              ? ['write_file', { path: `inside/d-${i}/x.txt`, content: `written ${i}\n` }]
              : // Grows the inside file by one "y"; the outside one has its own single "x" to change.
                kind === 'patch'
                ? ['patch', { path: 'inside/p.txt', old_string: 'x', new_string: 'xy' }]
                : ['search_files', { path: 'inside/f.txt', pattern: 'INSIDE|SECRET' }];
      calls.push(async () => {
        const text = await host.dispatch(name, args, { signal: signal() });
        const out = parse(text);
        if (text.includes(OUTSIDE_TEXT)) tally(kind, 'leaked', text);
        else if (out?.code === 'PERMISSION_DENIED') tally(kind, 'refused', text);
        else if (out?.code === undefined && (out !== undefined || text.includes('INSIDE'))) tally(kind, 'done', text);
        // A search whose file was met through the link skips it and says so: refused, in effect.
        else if (kind === 'search' && text.includes('leading outside the workspace')) tally(kind, 'refused', text);
        else tally(kind, 'other', text);
      });
    }
    expect(calls.length).toBe(ATTEMPTS);
    await runAll(calls);
    const swapperOutput = JSON.parse(await stopSwapper()) as { output: string; exitCode: number };

    const createdOutside = readdirSync(outside).filter((name) => !['f.txt', 'p.txt'].includes(name));
    const patchedOutside = readFileSync(path.join(outside, 'p.txt'), 'utf8') !== OUTSIDE_PATCHABLE;
    console.log(
      `link race: ${JSON.stringify(byKind)}; ${createdOutside.length} created outside, outside p.txt ${patchedOutside ? 'changed' : 'unchanged'}; ` +
        swapperOutput.output.trim().replace(/\n/g, ', '),
    );
    if (others.size > 0) console.log(`other results: ${[...others].slice(0, 5).join(' | ')}`);

    // The swapper ran in the terminal's sandbox (where there is one) the whole time.
    expect(swapperOutput.exitCode).toBe(0);
    expect(swapperOutput.output).toMatch(/swaps=[1-9]\d*/);
    if (probeSandbox().bwrap) expect(swapperOutput.output).toContain('outside-hidden');
    // The race was live: some calls met the link (refused), some the folder (done).
    expect(counts.refused).toBeGreaterThan(0);
    expect(byKind.read?.done).toBeGreaterThan(0);
    expect(byKind.write?.done).toBeGreaterThan(0);

    expect(counts.leaked).toBe(0);
    expect(createdOutside).toEqual([]);
    expect(patchedOutside).toBe(false);
  }, 600_000);
});
