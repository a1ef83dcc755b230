/**
 * Names that collide in all but bytes: a hostile MCP server (a real SDK server) lists tools named to
 * pass for the builtin read_file, and a plugin names a tool READ_FILE. Collisions are checked on the
 * folded name (NFKC, case, invisible characters), so a look-alike is renamed or loses like an exact
 * collision; a name with invisible or non-ASCII letters is refused, with its code points in explain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixture } from '../helpers.js';
import { exposedNames, PROJECT, server } from './setup.js';

const LOOK_ALIKE = fixture('mcp-servers', 'look-alike', 'server.mjs');
let host: ToolHost;

beforeAll(async () => {
  host = await createToolHost({
    cwd: PROJECT,
    env: { PATH: process.env.PATH },
    config: {
      cache: { enabled: false },
      enable: ['file', 'mcp-look', 'shouty', 'shouty-too'],
      plugins: [
        { package: fixture('plugins', 'shouty'), trust: 'trusted' },
        { package: fixture('plugins', 'shouty-too'), trust: 'trusted' },
      ],
      mcpServers: { look: { command: 'node', args: [LOOK_ALIKE] } },
    },
  });
});

afterAll(async () => {
  await host?.close();
});

describe('an MCP server whose tool names pass for the builtin read_file', () => {
  it('prefixes a name that differs only in case, as for an exact collision, and keeps one of two such twins', async () => {
    const report = await host.refresh();
    const look = server(report, 'look');
    expect(look.state).toBe('connected');
    expect(look.renamed).toEqual({ look_READ_FILE: 'READ_FILE', my_tool: 'my.tool' });
    // Read_File is prefixed too, and then is its own sibling's twin: left out as an exact twin would be.
    expect(look.warnings).toContain(
      'tool Read_File left out: its name becomes look_Read_File, which another of its tools already has (as look_READ_FILE: they differ only in case)',
    );
    const names = await exposedNames(host);
    expect(names).toEqual(
      expect.arrayContaining(['read_file', 'look_READ_FILE', 'own_tool', 'constructor', '__proto__']),
    );
    expect(await host.dispatch('__proto__', {})).toBe('called "__proto__"');
    // Plain ASCII punctuation is not refused: it becomes `_` as before.
    expect(names).toContain('my_tool');
    expect(await host.dispatch('my_tool', {})).toBe('called "my.tool"');
    for (const name of ['READ_FILE', 'Read_File', 'look_Read_File']) expect(names).not.toContain(name);
    // The renamed tool still reaches the server's own tool.
    expect(await host.dispatch('look_READ_FILE', {})).toBe('called "READ_FILE"');
    expect(report.conflicts.filter((c) => c.winner === 'mcp:look')).toEqual([]);
  });

  it('refuses names with invisible characters or look-alike letters, naming the code points', async () => {
    const report = await host.refresh();
    const warnings = server(report, 'look').warnings;
    expect(warnings).toEqual(
      expect.arrayContaining([
        'tool read_f\\u{200B}ile left out: its name contains invisible or control character (U+200B)',
        'tool re\\u{430}d_file left out: its name contains non-ASCII letter that may pass for ASCII ones (U+0430)',
        'tool read_\\u{202E}elif left out: its name contains invisible or control character (U+202E)',
        'tool \\u{FF52}\\u{FF45}\\u{FF41}\\u{FF44}_file left out: its name contains non-ASCII letters that may pass for ASCII ones (U+FF52, U+FF45, U+FF41, U+FF44)',
      ]),
    );
    const names = await exposedNames(host);
    // Nothing of them is served, not even as read_f_ile or re_d_file (what the old `_` mapping made).
    expect(names.filter((n) => /re.?.?d_.?f.?ile$/i.test(n))).toEqual(['look_READ_FILE', 'read_file']);
    expect(report.tools.map((t) => t.name).filter((n) => /[^\x20-\x7e]/.test(n))).toEqual([]);
  });

  it('shows the refusals in the CLI rendering with no raw control character', async () => {
    const { renderSummary } = await import('#internal/core/cli/render.js');
    const text = renderSummary(await host.refresh());
    expect(text).toContain('U+202E');
    expect(text).not.toMatch(/[\u200B\u202E\u0430]/);
  });
});

describe('plugins whose tool names differ only in case', () => {
  it('treats them as one name: the first in config order wins, the other is a conflict', async () => {
    const report = await host.refresh();
    const names = await exposedNames(host);
    // The builtin read_file comes first; shouty's READ_FILE loses to it like an exact collision.
    expect(names).toContain('read_file');
    expect(names).not.toContain('READ_FILE');
    expect(report.conflicts).toEqual(
      expect.arrayContaining([
        {
          name: 'read_file',
          winner: '@toolshed/file',
          losers: ['toolshed-plugin-shouty'],
          rule: 'config order',
          spellings: ['READ_FILE'],
        },
        {
          name: 'shout',
          winner: 'toolshed-plugin-shouty',
          losers: ['toolshed-plugin-shouty-too'],
          rule: 'config order',
          spellings: ['Shout'],
        },
      ]),
    );
    expect(names).toContain('shout');
    expect(names).not.toContain('Shout');
    const call = await host.call('READ_FILE', {});
    expect(call).toMatchObject({ ok: false, code: 'UNKNOWN_TOOL' });
  });

  it('lets prefer pick the other spelling', async () => {
    const preferring = await createToolHost({
      cwd: PROJECT,
      env: { PATH: process.env.PATH },
      config: {
        builtins: false,
        cache: { enabled: false },
        plugins: [
          { package: fixture('plugins', 'shouty'), trust: 'trusted' },
          { package: fixture('plugins', 'shouty-too'), trust: 'trusted' },
        ],
        prefer: { Shout: 'toolshed-plugin-shouty-too' },
      },
    });
    try {
      const names = await exposedNames(preferring);
      expect(names).toContain('Shout');
      expect(names).not.toContain('shout');
      expect(await preferring.dispatch('Shout', {})).toBe('HEY TOO');
      expect(preferring.explain().conflicts).toEqual([
        {
          name: 'Shout',
          winner: 'toolshed-plugin-shouty-too',
          losers: ['toolshed-plugin-shouty'],
          rule: 'prefer',
          spellings: ['shout'],
        },
      ]);
    } finally {
      await preferring.close();
    }
  });
});
