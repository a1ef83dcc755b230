/**
 * Text from tools and servers made safe for a terminal. A tool result or an MCP server's stderr
 * can carry escape sequences a terminal acts on: OSC 52 writes the clipboard, OSC 8 hides a link
 * behind other text, CSI moves the cursor and rewrites what is already on screen, and bidi
 * overrides reorder what is shown. Every control character is shown as text instead: C0 ones as
 * `\x1b`, DEL, C1 ones (U+0080–U+009F, where `\u009b` is a one-character CSI) and bidi controls as
 * `\u009b`; tab and newline stay (and a carriage return that ends a line). The `\uXXXX` form keeps
 * JSON valid: JSON.stringify escapes C0 itself and leaves the others, which read the same escaped.
 * The CLI's own colours (a few SGR codes, when its style colours) pass; docs/security.md.
 */

/**
 * C0 controls but tab and newline, a carriage return not before a newline, DEL, C1 controls, bidi overrides and
 * isolates.
 */
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this file is for
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f]|\r(?!\n)|[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The SGR sequences the CLI's own style writes (picocolors: bold, dim, red, green, yellow and their resets). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the CLI's own colour codes start with ESC
const OWN_COLOURS = /\u001b\[(?:1|2|22|31|32|33|39)m/y;

const hex = (code: number, width: number) => code.toString(16).padStart(width, '0');

/** One control character as text: `\x1b` for C0, `\u009b` for the rest. */
function shown(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x20 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
}

/**
 * `text` with every control character shown as text (see above); with `colours`, the CLI's own
 * colour codes pass as they are.
 * @example visible('\u001b]52;c;aGk=\u0007') // '\\x1b]52;c;aGk=\\x07'
 */
export function visible(text: string, colours = false): string {
  return text.replace(CONTROL, (char, offset: number) => {
    if (colours && char === '\u001b') {
      OWN_COLOURS.lastIndex = offset;
      if (OWN_COLOURS.test(text)) return char;
    }
    return shown(char);
  });
}

/** `text` on one line: `visible`, with newlines and tabs shown too (for log lines whose fields come from a client). */
export function visibleLine(text: string): string {
  return visible(text).replace(/\r?\n|\t/g, (char) => (char === '\t' ? '\\t' : '\\n'));
}
