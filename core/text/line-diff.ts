/**
 * A line diff for people: `- old`, `+ new` and a few unchanged lines around each
 * change, as `toolshed trust` shows a config against the one last accepted.
 */

/** Past this many line pairs the diff gives up on alignment and shows both texts whole (a config is rarely near it). */
const MAX_CELLS = 4_000_000;

/** Each line of `before` and `after` marked `' '`, `'-'` or `'+'`, in order (longest common subsequence). */
function align(before: string[], after: string[]): Array<[' ' | '-' | '+', string]> {
  const n = before.length;
  const m = after.length;
  if (n * m > MAX_CELLS)
    return [...before.map((l) => ['-', l] as ['-', string]), ...after.map((l) => ['+', l] as ['+', string])];
  // lengths[i][j]: the common subsequence of before[i..] and after[j..], in one flat array.
  const lengths = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--)
      lengths[at(i, j)] =
        before[i] === after[j]
          ? lengths[at(i + 1, j + 1)]! + 1
          : Math.max(lengths[at(i + 1, j)]!, lengths[at(i, j + 1)]!);
  }
  const out: Array<[' ' | '-' | '+', string]> = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) out.push([' ', before[i++]!]), j++;
    // On a tie the removed line comes first, as diff(1) shows a change.
    else if (i < n && (j === m || lengths[at(i + 1, j)]! >= lengths[at(i, j + 1)]!)) out.push(['-', before[i++]!]);
    else out.push(['+', after[j++]!]);
  }
  return out;
}

/**
 * The changed lines of `after` against `before`, with `context` unchanged lines
 * around each change and `…` where unchanged lines are left out; empty when equal.
 * @example
 * lineDiff('a\nb\n', 'a\nc\n') // ['  a', '- b', '+ c']
 */
export function lineDiff(before: string, after: string, context = 3): string[] {
  const split = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
  const lines = align(split(before), split(after));
  const near = lines.map(() => false);
  lines.forEach(([mark], index) => {
    if (mark === ' ') return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) near[k] = true;
  });
  const out: string[] = [];
  lines.forEach(([mark, line], index) => {
    if (near[index]) out.push(`${mark} ${line}`);
    // One mark for each run of unchanged lines left out, before a change or after one.
    else if (index === 0 || near[index - 1]) out.push('  …');
  });
  return near.some(Boolean) ? out : [];
}
