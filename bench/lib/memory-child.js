// Child process of the memory scenario: creates a host from the config given as
// JSON in argv[2] (cwd argv[3]), calls tool argv[4] of every plugin (prefix
// `mem<i>_`) a few times so every pool or child is active, then prints its own
// RSS and thread count and the RSS, PSS and count of every process below it
// (the untrusted plugins' children), closes the host and exits.
import { readFileSync } from 'node:fs';
import { createToolHost } from '../../dist/core/index.js';

const [config, cwd, tool, count] = [
  JSON.parse(process.argv[2]),
  process.argv[3],
  process.argv[4],
  Number(process.argv[5]),
];
const host = await createToolHost({ cwd, config });

for (let round = 0; round < 3; round++) {
  const out = await Promise.all(Array.from({ length: count }, (_, i) => host.dispatch(`mem${i}_${tool}`, '{"n":1}')));
  const bad = out.find((text) => text !== '{"echo":1}');
  if (bad) throw new Error(`a call failed: ${bad.slice(0, 300)}`);
}

const status = (pid) => readFileSync(`/proc/${pid}/status`, 'utf8');
const field = (text, name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
function descendants(pid) {
  const out = [];
  for (const task of safe(() => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8'), '')
    .split(/\s+/)
    .filter(Boolean)
    .map(Number))
    out.push(task, ...descendants(task));
  return out;
}
function safe(fn, fallback) {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
const self = status(process.pid);
const children = descendants(process.pid).map((pid) => ({
  name: safe(() => readFileSync(`/proc/${pid}/comm`, 'utf8').trim(), '?'),
  rssKb: safe(() => field(status(pid), 'VmRSS'), 0),
  pssKb: safe(() => field(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss'), 0),
  threads: safe(() => field(status(pid), 'Threads'), 0),
}));
process.stdout.write(
  JSON.stringify({
    rssKb: field(self, 'VmRSS'),
    threads: field(self, 'Threads'),
    pssKb: safe(() => field(readFileSync(`/proc/${process.pid}/smaps_rollup`, 'utf8'), 'Pss'), 0),
    children,
  }),
);
await host.close();
