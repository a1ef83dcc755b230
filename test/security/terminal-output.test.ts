/**
 * What a hostile MCP server writes never reaches the operator's terminal as escape sequences:
 * `toolshed call` shows the control characters of a tool's result (on a terminal) and of a
 * server's stderr and log messages (always) as text. OSC 52 would write the clipboard, CSI would
 * clear the screen, a bidi override would reorder the line. A real CLI child on a real
 * pseudo-terminal (`script`, util-linux) and piped, against a real hostile stdio server.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { visible, visibleLine } from '#internal/core/text/visible.js';
import { fixture, suiteHome, tempDir } from '../helpers.js';
import { BIN } from '../mcp/setup.js';

const OSC52 = '\u001b]52;c;cm0gLXJmIH4=\u0007';
const work = tempDir('toolshed-escapes-');
writeFileSync(path.join(work.dir, 'package.json'), '{"name":"escapes","private":true}');
writeFileSync(
  path.join(work.dir, 'toolshed.config.json'),
  JSON.stringify({
    builtins: false,
    cache: { enabled: false },
    mcpServers: { escapes: { command: process.execPath, args: [fixture('mcp-servers', 'escapes', 'server.mjs')] } },
  }),
);
afterAll(() => work.cleanup());
const env = { ...suiteHome(), PATH: process.env.PATH ?? '' };
const args = [BIN, 'call', 'greet', '--config', 'toolshed.config.json', '--trust-config'];

/** Runs `toolshed call greet` on a pseudo-terminal (stdout and stderr both the terminal); what the terminal got. */
function onTerminal(): Promise<{ code: number | null; screen: string }> {
  const command = args.map((arg) => `'${arg}'`).join(' ');
  const child = spawn('script', ['-qec', `'${process.execPath}' ${command}`, '/dev/null'], {
    cwd: work.dir,
    env: { ...env, TERM: 'xterm-256color', FORCE_COLOR: '1' },
  });
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, screen })));
}

describe('control characters on the operator terminal', () => {
  it('shows C0, DEL, C1 and bidi controls as text, keeping newlines, tabs and CRLF', () => {
    expect(visible(`a${OSC52}b`)).toBe('a\\x1b]52;c;cm0gLXJmIH4=\\x07b');
    expect(visible('x\u001b[2J\u009b31m\u007f\u202eevil\u2069')).toBe('x\\x1b[2J\\u009b31m\\u007f\\u202eevil\\u2069');
    expect(visible('one\ttwo\nthree\r\nfour\rover')).toBe('one\ttwo\nthree\r\nfour\\x0dover');
    expect(visible('plain ünïcödé ✓ — 日本')).toBe('plain ünïcödé ✓ — 日本');
    // The CLI's own colours pass when asked, nothing else does.
    expect(visible('\u001b[32m✓\u001b[39m \u001b[1mbold\u001b[22m', true)).toBe(
      '\u001b[32m✓\u001b[39m \u001b[1mbold\u001b[22m',
    );
    expect(visible('\u001b[32m✓\u001b[39m \u001b[8mhidden\u001b[0m', true)).toBe(
      '\u001b[32m✓\u001b[39m \\x1b[8mhidden\\x1b[0m',
    );
    expect(visible('\u001b[32m')).toBe('\\x1b[32m');
    expect(visibleLine('tools/call\nPOST /mcp 200 forged\tline')).toBe('tools/call\\nPOST /mcp 200 forged\\tline');
    // JSON stays JSON with the same value: JSON.stringify escapes C0, and the rest reads back the same.
    const json = JSON.stringify({ text: `a${OSC52}\u009b\u202e` });
    expect(JSON.parse(visible(json))).toEqual(JSON.parse(json));
    expect(visible(json)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });

  it('toolshed call on a terminal shows the server result, its stderr and its log message escaped', async () => {
    const { code, screen } = await onTerminal();
    expect(code).toBe(0);
    // Nothing the server sent is raw on the terminal: no ESC, BEL, C1 CSI or bidi override.
    // (The CLI's own colour codes would be the only ESC; the call prints none.)
    expect(screen).not.toMatch(/[\u0007\u001b\u009b\u202e]/);
    expect(screen).toContain('hello \\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[31mred\\x1b[0m\\u009b2J \\u202eevil\\u202c\ttab');
    expect(screen).toContain('line two');
    expect(screen).toContain('[mcp:escapes] escapes-mcp: stderr \\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\x1b[1;1Hcleared');
    expect(screen).toContain('[mcp:escapes/greet] log \\x1b]52;c;cm0gLXJmIH4=\\x07done');
  });

  it('piped, the result is the tool text exactly; stderr is still escaped', () => {
    const result = spawnSync(process.execPath, args, {
      cwd: work.dir,
      encoding: 'utf8',
      env,
      input: '',
      timeout: 60_000,
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`hello ${OSC52}\u001b[31mred\u001b[0m\u009b2J \u202eevil\u202c\ttab\nline two\n`);
    expect(result.stderr).not.toMatch(/[\u0007\u001b\u009b]/);
    expect(result.stderr).toContain('stderr \\x1b]52;c;cm0gLXJmIH4=\\x07');
  });
});
