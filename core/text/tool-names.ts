/**
 * Tool names as a person reads them. Two names that look alike collide even
 * when their bytes differ: collisions are checked on a folded form (Unicode
 * NFKC, case folded, invisible characters removed), so `READ_FILE` and
 * `read_file` are one name. A name that carries invisible characters (a
 * zero-width space, a bidi control) or letters outside ASCII (a Cyrillic `а`
 * in `reаd_file`, fullwidth `ｒｅａｄ`) is how a look-alike is made: such a
 * name is refused, with the code points named, instead of being mapped to `_`.
 */

const ASCII = /^[\x20-\x7e]*$/;
/**
 * Characters that show as nothing or reorder text: format characters (bidi controls, zero-widths), default-ignorables,
 * controls.
 */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cc}]/gu;
/** Letters, marks and digits outside ASCII: each may pass for an ASCII one (and would otherwise become `_`). */
const LOOKALIKE = /[\p{L}\p{M}\p{N}]/u;

/**
 * The form collisions are checked on: NFKC, case folded, invisible characters removed.
 * @example
 * foldName('READ_FILE') === foldName('read_f\u200Bile') // true
 */
export function foldName(name: string): string {
  // Nearly every name is plain ASCII: lower case is its whole fold.
  if (ASCII.test(name)) return name.toLowerCase();
  // Upper then lower folds what lower alone keeps apart (ß and SS, final and medial sigma).
  return name.normalize('NFKC').replace(INVISIBLE, '').toUpperCase().toLowerCase().normalize('NFKC');
}

/** `U+200B`: a code point as the Unicode charts write it. */
function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Why `name` is refused as a tool name, naming the code points, or undefined when it is
 * not: invisible characters, or letters, marks or digits outside ASCII.
 * @example
 * refusedName('read_f\u200Bile') // 'its name contains invisible or control character (U+200B)'
 */
export function refusedName(name: string): string | undefined {
  if (ASCII.test(name)) return undefined;
  const invisible = new Set<string>();
  const lookalike = new Set<string>();
  for (const char of name) {
    if (char.match(INVISIBLE)) invisible.add(codePoint(char));
    else if (char.codePointAt(0)! > 0x7e && LOOKALIKE.test(char)) lookalike.add(codePoint(char));
  }
  const parts: string[] = [];
  if (invisible.size)
    parts.push(`invisible or control character${invisible.size > 1 ? 's' : ''} (${[...invisible].join(', ')})`);
  if (lookalike.size)
    parts.push(
      `non-ASCII letter${lookalike.size > 1 ? 's' : ''} that may pass for ASCII ones (${[...lookalike].join(', ')})`,
    );
  return parts.length ? `its name contains ${parts.join(' and ')}` : undefined;
}

/**
 * `name` safe to print: anything outside printable ASCII written as `\u{…}`, so no control reorders or hides the report
 * around it.
 */
export function shownName(name: string): string {
  return ASCII.test(name)
    ? name
    : [...name]
        .map((char) => (ASCII.test(char) ? char : `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`))
        .join('');
}
