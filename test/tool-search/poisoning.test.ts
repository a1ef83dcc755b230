/**
 * tool_search against a plugin stuffed with the words agents search for
 * (test/fixtures/search/stuffed, untrusted): over the benchmark's catalogue of
 * honest tools (533 tools in real plugin packages) and its 172 hand-written
 * queries plus the issue's own, the stuffed plugin is in the top 5 for at most
 * 10% of the queries and the honest tools' recall@5 is what it is without it.
 * Then each defence on its own: one source takes at most three of the first five (an untrusted one two)
 * places unless the query names it, an untrusted tool ranks below an equally
 * good trusted one, and `search.exclude` keeps a source out of search while its
 * tools stay callable.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import {
  ToolIndex,
  RANKING,
  UNDEFENDED,
  fieldTerms,
  type IndexedTool,
} from '#internal/core/call/search/search-index.js';
import { renderSummary } from '#internal/core/cli/render.js';
import { fixture, tempDir } from '../helpers.js';

type Query = [string, string[]];
interface Catalogue {
  SERVICES: Array<{ toolset: string; description: string }>;
  catalogueTools(): Array<{ name: string; toolset: string; description: string; parameters: Record<string, unknown> }>;
}

const BENCH = fileURLToPath(new URL('../../bench/tool-search/', import.meta.url));
// Imported by path at run time: the benchmark is plain JavaScript outside the typed project.
const benchModule = async <T>(file: string): Promise<T> =>
  (await import(pathToFileURL(path.join(BENCH, file)).href)) as T;

const STUFFED = fixture('search', 'stuffed');
const STUFFED_PLUGIN = 'toolshed-fixture-stuffed-search';
const STUFFED_TOOLS = new Set(['universal_assistant', 'power_helper', 'smart_actions', 'quick_do', 'one_more_thing']);

// The issue's examples, in its words, beside the benchmark's queries.
const ISSUE_QUERIES: Query[] = [
  ['create a github issue', ['github_create_issue']],
  ['send a slack message', ['slack_post_message', 'slack_send_direct_message']],
  ['list my github pull requests', ['github_list_pull_requests']],
  ['search jira tickets', ['jira_search_issues']],
  ['send an email', ['gmail_send_email', 'outlook_send_mail', 'sendgrid_send_email']],
];

let work: { dir: string; cleanup(): void };
let queries: Query[];
let catalogue: Catalogue;
let dirs: string[];
let clean: ToolHost;
let poisoned: ToolHost;

const config = (extra: Record<string, unknown> = {}, stuffed = true) => ({
  builtins: false,
  limits: { threads: 1 },
  defer: ['*'],
  plugins: [
    ...dirs.map((dir) => ({ package: dir, trust: 'trusted' as const })),
    ...(stuffed ? [{ package: STUFFED, trust: 'untrusted' as const }] : []),
  ],
  ...extra,
});
const open = (extra: Record<string, unknown> = {}, stuffed = true) =>
  createToolHost({ cwd: work.dir, env: { PATH: process.env.PATH }, config: config(extra, stuffed) });
const search = async (host: ToolHost, query: string, limit = 10): Promise<string[]> =>
  (
    JSON.parse(await host.dispatch('tool_search', { query, limit }, { sessionId: 'poisoning' })) as {
      tools: Array<{ name: string }>;
    }
  ).tools.map((t) => t.name);

/** recall@5 over `queries`, and how many answers hold a stuffed tool in their first five places. */
async function measure(
  rank: (query: string) => Promise<string[]> | string[],
): Promise<{ recallAt5: number; stuffedInTop5: number }> {
  let hits = 0;
  let stuffed = 0;
  for (const [query, acceptable] of queries) {
    const top5 = (await rank(query)).slice(0, 5);
    if (top5.some((name) => acceptable.includes(name))) hits++;
    if (top5.some((name) => STUFFED_TOOLS.has(name))) stuffed++;
  }
  return { recallAt5: hits / queries.length, stuffedInTop5: stuffed };
}

beforeAll(async () => {
  work = tempDir();
  catalogue = await benchModule<Catalogue>('catalogue/index.js');
  const { QUERIES } = await benchModule<{ QUERIES: Query[] }>('queries.js');
  const { writeCatalogue } = await benchModule<{ writeCatalogue(root: string): string[] }>('plugins.js');
  queries = [...QUERIES, ...ISSUE_QUERIES];
  dirs = writeCatalogue(path.join(work.dir, 'catalogue'));
  clean = await open({}, false);
  poisoned = await open();
}, 180_000);

afterAll(async () => {
  await clean?.close();
  await poisoned?.close();
  work?.cleanup();
});

describe('a plugin stuffed with common keywords', () => {
  it('loads untrusted, and is a real attack: without the defences it takes more top-5 places, and first places', async () => {
    const plugin = poisoned.explain().plugins.find((p) => p.name === STUFFED_PLUGIN);
    expect(plugin).toMatchObject({ status: 'loaded', trust: 'untrusted' });
    // The same tools ranked the way tool_search ranked before the defences: the fixture is a real attack.
    const { default: stuffed } = (await import(pathToFileURL(path.join(STUFFED, 'index.js')).href)) as {
      default: {
        toolsets: Record<string, { description: string }>;
        tools: Array<{ name: string; toolset: string; description: string; parameters: Record<string, unknown> }>;
      };
    };
    const descriptions = Object.fromEntries(catalogue.SERVICES.map((s) => [s.toolset, s.description]));
    const tools: IndexedTool[] = [
      ...catalogue
        .catalogueTools()
        .map((t) => ({ definition: t, toolset: t.toolset, toolsetDescription: descriptions[t.toolset] })),
      ...stuffed.tools.map((t) => ({
        definition: { name: t.name, description: t.description, parameters: t.parameters },
        toolset: t.toolset,
        toolsetDescription: stuffed.toolsets[t.toolset]!.description,
        source: STUFFED_PLUGIN,
        untrusted: true,
      })),
    ] as IndexedTool[];
    const undefended = new ToolIndex(UNDEFENDED);
    undefended.sync(tools);
    const defended = new ToolIndex(RANKING);
    defended.sync(tools);
    const before = await measure((query) => undefended.search(query, 10));
    const after = await measure((query) => defended.search(query, 10));
    // Measured (issue 40's settings): 21 of 177 queries against 2; first for 6 against none.
    expect(before.stuffedInTop5).toBeGreaterThan(after.stuffedInTop5 * 1.5);
    expect(queries.filter(([query]) => STUFFED_TOOLS.has(undefended.search(query, 1)[0]!)).length).toBeGreaterThan(0);
    expect(queries.filter(([query]) => STUFFED_TOOLS.has(defended.search(query, 1)[0]!))).toEqual([]);
  });

  it(`is in the top 5 for at most 10% of ordinary queries, and the honest tools' recall@5 moves by at most one query`, async () => {
    expect(queries.length).toBeGreaterThanOrEqual(30);
    const without = await measure((query) => search(clean, query));
    const withStuffed = await measure((query) => search(poisoned, query));
    expect(without.stuffedInTop5).toBe(0);
    expect(withStuffed.stuffedInTop5 / queries.length).toBeLessThanOrEqual(0.1);
    // Its five tools change the catalogue's word statistics (idf, average field lengths), which can move an
    // honest answer from fifth to sixth place without a stuffed tool above it: one query at most.
    expect(Math.round(withStuffed.recallAt5 * queries.length)).toBeGreaterThanOrEqual(
      Math.round(without.recallAt5 * queries.length) - 1,
    );
    // And it is never the first answer to the issue's own queries.
    for (const [query] of ISSUE_QUERIES) expect(STUFFED_TOOLS.has((await search(poisoned, query))[0]!)).toBe(false);
  }, 120_000);
});

describe('the indexed text', () => {
  it('reads a field only up to its word cap, and a word counts at most twice in a field', () => {
    expect(fieldTerms('invoice '.repeat(50), 150, 2)).toEqual(['invoice', 'invoice']);
    expect(fieldTerms('one two three four', 3, 2)).toEqual(['one', 'two', 'three']);
    // A word past the cap is not found; the same index without the cap finds it.
    const long = [
      {
        definition: { name: 'long_tool', description: `${'filler '.repeat(200)}zebra`, parameters: { type: 'object' } },
        toolset: 'misc',
      },
    ];
    const capped = new ToolIndex(RANKING);
    capped.sync(long);
    expect(capped.search('zebra', 5)).toEqual([]);
    const uncapped = new ToolIndex({ ...RANKING, fieldWords: false });
    uncapped.sync(long);
    expect(uncapped.search('zebra', 5)).toEqual(['long_tool']);
  });
});

describe('a wordy tool', () => {
  it('with far more indexed words than an honest tool scores lower than the same match in a short one', () => {
    const filler = Object.fromEntries(Array.from({ length: 140 }, (_, i) => [`option${i}`, { type: 'string' }]));
    const tools = [
      {
        definition: {
          name: 'send_fax',
          description: 'Send a fax.',
          parameters: { type: 'object', properties: filler },
        },
        toolset: 'a',
      },
      {
        definition: {
          name: 'send_fax_now',
          description: 'Send a fax.',
          parameters: { type: 'object', properties: { to: { type: 'string' } } },
        },
        toolset: 'b',
      },
    ];
    const rank = (options: typeof RANKING) => {
      const index = new ToolIndex(options);
      index.sync(tools);
      return index.search('send a fax', 2);
    };
    // The wordy tool's name is shorter, so it matches a little better: without the factor it wins. (The
    // shipped threshold is 250 words, above 99 % of real MCP tools; 100 here keeps the fixture small.)
    expect(rank({ ...RANKING, wordy: false })).toEqual(['send_fax', 'send_fax_now']);
    expect(rank({ ...RANKING, wordy: { words: 100, power: 1 } })).toEqual(['send_fax_now', 'send_fax']);
  });
});

describe('search.exclude', () => {
  it("keeps a plugin's tools out of every answer; they stay callable by name and explain says so", async () => {
    const host = await open({ search: { exclude: [STUFFED_PLUGIN, 'no-such-plugin'] } });
    try {
      for (const [query] of queries.slice(0, 40))
        expect((await search(host, query)).filter((name) => STUFFED_TOOLS.has(name))).toEqual([]);
      expect(await search(host, 'universal assistant')).not.toContain('universal_assistant');
      expect(await host.dispatch('power_helper', {})).toBe('power_helper answered');
      const report = host.explain();
      expect(report.search.excluded).toEqual([...STUFFED_TOOLS].sort());
      expect(report.search.excludeUnmatched).toEqual(['no-such-plugin']);
      const text = renderSummary(report);
      expect(text).toContain(
        `kept out of tool_search by search.exclude (callable by name): ${[...STUFFED_TOOLS].sort().join(', ')}`,
      );
      expect(text).toContain('search.exclude entries that match no exposed tool: no-such-plugin');
      expect(text).not.toMatch(/deferred \(listed once tool_search finds them\):[^\n]*universal_assistant/);
    } finally {
      await host.close();
    }
  }, 120_000);

  it('takes toolsets, tool names and * patterns', async () => {
    const host = await open({ search: { exclude: ['every*', 'slack_post_message'] } });
    try {
      expect(host.explain().search.excluded).toEqual([...STUFFED_TOOLS, 'slack_post_message'].sort());
      expect(await search(host, 'post a message in the slack channel')).not.toContain('slack_post_message');
      expect(await search(host, 'post a message in the slack channel')).toContain('slack_reply_to_thread');
    } finally {
      await host.close();
    }
  }, 120_000);
});

describe('ranking by source', () => {
  const tool = (
    name: string,
    description: string,
    source: string,
    toolset = source,
    untrusted = false,
  ): IndexedTool => ({
    definition: { name, description, parameters: { type: 'object', properties: {} } },
    toolset,
    source,
    untrusted,
  });
  const indexOf = (tools: IndexedTool[]) => {
    const index = new ToolIndex(RANKING);
    index.sync(tools);
    return index;
  };
  // Five strong invoice tools from one plugin, three weaker ones from others.
  const tools = [
    ...['create', 'send', 'void', 'list', 'pay'].map((verb) =>
      tool(`acme_${verb}_invoice`, `${verb} an invoice. Invoice tool.`, 'toolshed-plugin-acme', 'acme'),
    ),
    tool('books_invoice_report', 'A report over invoices and invoice totals.', 'toolshed-plugin-books', 'books'),
    tool('ledger_find', 'Find an invoice in the ledger.', 'mcp:ledger', 'mcp-ledger'),
    tool('crm_bill', 'Bill a customer (creates an invoice).', 'toolshed-plugin-crm', 'crm'),
  ];
  const source2 = (list: IndexedTool[], name: string) => list.find((t) => t.definition.name === name)!.source;
  const source = (name: string) => source2(tools, name);

  it('a trusted source takes at most 3 of the first 5 places, an untrusted one 2; their other hits follow', () => {
    const ranked = indexOf(tools).search('invoice', 10);
    expect(ranked.slice(0, 5).filter((name) => source(name) === 'toolshed-plugin-acme')).toHaveLength(3);
    expect(ranked.filter((name) => source(name) === 'toolshed-plugin-acme')).toHaveLength(5);
    const untrusted = tools.map((t) => (t.source === 'toolshed-plugin-acme' ? { ...t, untrusted: true } : t));
    const held = indexOf(untrusted).search('invoice', 10);
    expect(held.slice(0, 5).filter((name) => source(name) === 'toolshed-plugin-acme')).toHaveLength(2);
    expect(held.slice(0, 5)).toEqual(expect.arrayContaining(['books_invoice_report', 'ledger_find', 'crm_bill']));
    expect(held.filter((name) => source(name) === 'toolshed-plugin-acme')).toHaveLength(5);
    // Without the limit the same query gives that plugin four of the first five.
    const unlimited = new ToolIndex({ ...RANKING, perSource: false });
    unlimited.sync(tools);
    expect(
      unlimited.search('invoice', 5).filter((name) => source(name) === 'toolshed-plugin-acme').length,
    ).toBeGreaterThan(3);
  });

  it('unless the query names its toolset, its package or its MCP server', () => {
    const index = indexOf(tools);
    expect(
      index.search('acme invoice', 5).filter((name) => source(name) === 'toolshed-plugin-acme').length,
    ).toBeGreaterThan(3);
    const weaker = (name: string, source: string) =>
      tool(name, 'A monthly report that lists every invoice with its totals and taxes.', source);
    const ledger = [
      ...['find', 'list', 'void', 'send'].map((verb) =>
        tool(`ledger_${verb}_invoice`, `${verb} an invoice.`, 'mcp:ledger', 'billing'),
      ),
      weaker('x_report', 'x'),
      weaker('y_report', 'y'),
      weaker('z_report', 'z'),
    ];
    const fromLedger = (query: string) =>
      indexOf(ledger)
        .search(query, 5)
        .filter((name) => source2(ledger, name) === 'mcp:ledger');
    expect(fromLedger('invoice')).toHaveLength(3);
    expect(fromLedger('ledger invoice')).toHaveLength(4);
  });

  it('a query only one source answers still gets a full answer', () => {
    expect(indexOf(tools.slice(0, 5)).search('invoice', 5)).toHaveLength(5);
  });

  it('an untrusted tool ranks below an equally good trusted one, and above a clearly worse one', () => {
    const pair = [
      tool('a_send_fax', 'Send a fax to a number.', 'toolshed-plugin-a', 'a', true),
      tool('b_send_fax', 'Send a fax to a number.', 'toolshed-plugin-b', 'b'),
      tool('c_cover_page', 'Print a cover page, for a fax or a letter.', 'toolshed-plugin-c', 'c'),
    ];
    expect(indexOf(pair).search('send a fax', 3)).toEqual(['b_send_fax', 'a_send_fax', 'c_cover_page']);
    // The same with trust swapped: order follows trust, not names.
    const swapped = pair.map((t, i) => ({ ...t, untrusted: i === 1 }));
    expect(indexOf(swapped).search('send a fax', 3)).toEqual(['a_send_fax', 'b_send_fax', 'c_cover_page']);
  });
});
