/**
 * A link race against the first-party file tools, driven by tool calls alone:
 * the sandboxed terminal (which sees only the workspace) keeps exchanging a
 * folder `inside/` with a symbolic link to a folder outside the workspace
 * (renameat2 RENAME_EXCHANGE), while many parallel read_file and write_file
 * calls go to `inside/…`. Checking a path and then opening it again by path
 * loses this race; the file tools must read and write the very object they
 * checked, so no read returns the outside file and nothing is created outside.
 */
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { probeSandbox } from '../../dist/sandbox/process/probe.js';
import { tempDir } from '../helpers.js';

/** Tool calls in all, split between reads, writes and writes that create a folder. */
const READS = 5_000;
const WRITES = 4_000;
const NESTED_WRITES = 1_000;
/** Calls in flight at once. */
const PARALLEL = 16;
/** A ceiling for the swapper, far above what the calls need; it normally stops at the stop file. */
const MAX_SWAPS = 200_000_000;
/** renameat2 on x86_64 and arm64 (asm/unistd_64.h, asm-generic/unistd.h); AT_FDCWD is -100, RENAME_EXCHANGE is 2. */
const RENAMEAT2 = process.arch === 'arm64' ? 276 : 316;
const OUTSIDE_TEXT = 'OUTSIDE SECRET';

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
  writeFileSync(path.join(outside, 'f.txt'), `${OUTSIDE_TEXT}\n`);
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

describe('file tools under a link race (terminal swaps a folder with a link to outside)', () => {
  it('never read the outside file and never create anything outside', async () => {
    const command = `test -e ${JSON.stringify(outside)} && echo outside-visible || echo outside-hidden; perl -e '${swapScript}'`;
    swapper = host.dispatch('terminal', { command, timeoutMs: 540_000 });
    // The swapper says it is running by a file the file tools can read; wait for it by counting tries, not time.
    for (let i = 0; i < 600; i++) {
      if (!parse(await host.dispatch('read_file', { path: 'swapper.started' }))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const counts = { readInside: 0, readOutside: 0, readRefused: 0, readOther: 0, written: 0, writeRefused: 0, writeOther: 0 };
    const others = new Set<string>();
    const signal = () => AbortSignal.timeout(30_000);
    const calls: Array<() => Promise<void>> = [];
    for (let i = 0; i < READS + WRITES + NESTED_WRITES; i++) {
      if (i % 2 === 0 && i / 2 < READS) {
        calls.push(async () => {
          const text = await host.dispatch('read_file', { path: 'inside/f.txt' }, { signal: signal() });
          if (text.includes(OUTSIDE_TEXT)) counts.readOutside++;
          else if (text === '     1|INSIDE') counts.readInside++;
          else if (parse(text)?.code === 'PERMISSION_DENIED') counts.readRefused++;
          else {
            counts.readOther++;
            others.add(text.slice(0, 200));
          }
        });
      } else {
        const target = i % 10 === 1 ? `inside/d-${i}/x.txt` : `inside/w-${i}.txt`;
        calls.push(async () => {
          const text = await host.dispatch('write_file', { path: target, content: `written ${i}\n` }, { signal: signal() });
          const out = parse(text);
          if (out && 'created' in out) counts.written++;
          else if (out?.code === 'PERMISSION_DENIED') counts.writeRefused++;
          else {
            counts.writeOther++;
            others.add(text.slice(0, 200));
          }
        });
      }
    }
    expect(calls.length).toBe(READS + WRITES + NESTED_WRITES);
    expect(calls.filter((_, i) => i % 10 === 1).length).toBe(NESTED_WRITES);
    await runAll(calls);
    const swapperOutput = JSON.parse(await stopSwapper()) as { output: string; exitCode: number };

    const createdOutside = readdirSync(outside).filter((name) => name !== 'f.txt');
    console.log(`link race: ${JSON.stringify(counts)}, ${createdOutside.length} created outside; ${swapperOutput.output.trim().replace(/\n/g, ', ')}`);
    if (others.size > 0) console.log(`other results: ${[...others].slice(0, 5).join(' | ')}`);

    // The swapper ran in the terminal's sandbox (where there is one) the whole time.
    expect(swapperOutput.exitCode).toBe(0);
    expect(swapperOutput.output).toMatch(/swaps=[1-9]\d*/);
    if (probeSandbox().bwrap) expect(swapperOutput.output).toContain('outside-hidden');
    // The race was live: some calls met the link (refused), some the folder (done).
    expect(counts.readRefused + counts.writeRefused).toBeGreaterThan(0);
    expect(counts.readInside).toBeGreaterThan(0);
    expect(counts.written).toBeGreaterThan(0);

    expect(counts.readOutside).toBe(0);
    expect(createdOutside).toEqual([]);
  }, 600_000);
});
