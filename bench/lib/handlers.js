/**
 * The handler bodies every benchmark shares. Plugins get them inlined with
 * `toString()` (a process-tier plugin may not read files outside its folder);
 * the raw baselines import them, so toolshed and its baselines run the very
 * same code.
 */

/** The trivial tool: echoes one integer. */
export async function echo(args) {
  return { echo: args.n };
}

/** The CPU-bound tool: `args.n` iterations of integer arithmetic. */
export async function spin(args) {
  let x = 0;
  for (let i = 0; i < args.n; i++) x = (x * 31 + i) % 1000003;
  return { x };
}
