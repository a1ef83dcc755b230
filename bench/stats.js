/**
 * Sample statistics and the interleaved runner. On a noisy machine only
 * ratios of runs made side by side mean anything, so every scenario runs its
 * variants in alternating batches (the order rotates each round) and compares
 * medians.
 */
import { performance } from 'node:perf_hooks';

/** The p-th percentile (0..100) of `samples`, nearest-rank. */
export function percentile(samples, p) {
  if (!samples.length) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Median, p99 and count of a list of milliseconds. */
export function summarize(samples) {
  return { median: percentile(samples, 50), p99: percentile(samples, 99), n: samples.length };
}

/**
 * Runs `variants` in alternating batches and returns each one's samples (ms per op).
 * A variant is `{ name, op, prepare?, before?, batch?, warmup? }`: `op` is
 * timed; `prepare` runs untimed before each op, `before` untimed before each
 * batch; `batch` and `warmup` override the shared counts. Warm-up ops of every
 * variant run first and are discarded. With `reported`, each op returns its own
 * time in ms (e.g. spawn → first answer of a child process), which is recorded
 * instead of the op's whole duration.
 */
export async function interleave(variants, { rounds, batch, warmup = 0, reported = false }) {
  for (const variant of variants) {
    await variant.before?.();
    for (let i = 0; i < (variant.warmup ?? warmup); i++) {
      await variant.prepare?.();
      await variant.op(i);
    }
  }
  const samples = Object.fromEntries(variants.map((v) => [v.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(round + k) % variants.length];
      await variant.before?.();
      const out = samples[variant.name];
      for (let i = 0; i < (variant.batch ?? batch); i++) {
        await variant.prepare?.();
        const start = performance.now();
        const own = await variant.op(i);
        out.push(reported ? own : performance.now() - start);
      }
    }
  }
  return samples;
}

/** Ratio of two medians. */
export function ratio(measured, baseline) {
  return measured.median / baseline.median;
}
