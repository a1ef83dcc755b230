// @ts-check
/**
 * The import rules that keep toolshed's folders saying their side (docs/architecture.md):
 * `npm run lint:imports` runs them, and test/architecture/imports.test.ts fails the suite on any
 * finding. Type-only imports count (`tsPreCompilationDeps`): a type a worker imports from the
 * host ties the two as surely as a value does.
 */

const path = require('node:path');

/** The host's folders by rank: a folder may import folders of its own or a lower rank, never higher. */
const HOST_RANKS = [
  ['boundary'],
  ['core/text', 'core/schema', 'core/state', 'core/providers'],
  ['core/runners'],
  ['core/config'],
  ['core/load', 'core/mcp-client'],
  ['core/expose'],
  ['core/call', 'core/access'],
  ['core/explain'],
  ['core/host'],
  ['core/http'],
  ['core/mcp-server', 'core/console', 'core/adapters', 'core/cli'],
  ['core/index.ts'],
];

/** `^(a|b)(/|$)`: the folders (or the one file) and everything under them. */
const under = (folders) => `^(${folders.map((f) => f.replaceAll('.', '\\.')).join('|')})(/|$)`;

/** One rule per rank: nothing at that rank imports anything ranked above it. */
const rankRules = HOST_RANKS.slice(0, -1).map((folders, rank) => ({
  name: `host-rank-${rank}`,
  comment:
    `${folders.join(', ')} (rank ${rank}) import only folders of rank ${rank} or lower: data flows config → load ` +
    `→ expose → call → runners, never back.`,
  severity: 'error',
  from: { path: under(folders) },
  to: { path: under(HOST_RANKS.slice(rank + 1).flat()) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-module-cycle',
      comment: 'No module imports itself through others (type imports included).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      comment: 'No folder imports itself through other folders.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-import-into-subfolder',
      comment:
        "A folder's own modules (the seam) never reach into its subfolders (the implementations: " +
        'runners/thread, runners/process): the folder-scoped cycle rule counts a subfolder as part of its ' +
        'parent, so this is the parent ↔ child half of it. core/index.ts, core/mcp-server/index.ts and ' +
        "sandbox/toolkit.ts, public entries over their folders, and the console page's app.tsx, which lays out " +
        'its panels, are the exceptions.',
      severity: 'error',
      from: {
        path: '^(.+)/[^/]+$',
        pathNot: [
          '^core/index\\.ts$',
          '^core/mcp-server/index\\.ts$',
          '^sandbox/toolkit\\.ts$',
          '^console/src/app\\.tsx$',
        ],
      },
      to: { path: '^$1/[^/]+/' },
    },
    {
      name: 'boundary-imports-only-boundary',
      comment:
        'boundary/ holds the wire types and the code both sides run: it imports only itself, node builtins and ' +
        'npm packages.',
      severity: 'error',
      from: { path: '^boundary/' },
      to: { pathNot: ['^boundary/', '^node_modules/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'sandbox-imports-only-sandbox-and-boundary',
      comment:
        'Code that runs beside foreign code (a worker, a child, QuickJS) imports only sandbox/ and boundary/, ' +
        'never the host.',
      severity: 'error',
      from: { path: '^sandbox/' },
      to: { pathNot: ['^sandbox/', '^boundary/', '^node_modules/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'host-not-to-sandbox',
      comment:
        'The host starts workers and children by path, never imports their code; the exports probe ' +
        '(core/expose → sandbox/code) is the one exception.',
      severity: 'error',
      from: { path: '^core/', pathNot: '^core/expose/' },
      to: { path: '^sandbox/' },
    },
    {
      name: 'expose-to-sandbox-only-code',
      comment: 'The exports probe imports the execute_code runtime (sandbox/code) and nothing else of sandbox/.',
      severity: 'error',
      from: { path: '^core/expose/' },
      to: { path: '^sandbox/', pathNot: '^sandbox/code/' },
    },
    {
      name: 'expose-not-to-call',
      comment:
        'The expose stage decides what the model sees; it never reaches into dispatch (tool_search lives with call/).',
      severity: 'error',
      from: { path: '^core/expose/' },
      to: { path: '^core/call/' },
    },
    ...rankRules,
    {
      name: 'console-page-imports-its-own',
      comment:
        "The web console's page (console/src) imports its own files, its npm packages (preact) and the console " +
        "API's types (core/console/api-types.ts): nothing else of toolshed, no Node module.",
      severity: 'error',
      from: { path: '^console/src/' },
      to: { pathNot: ['^console/src/', '^node_modules/', '^core/console/api-types\\.ts$'] },
    },
    {
      name: 'console-page-api-types-type-only',
      comment:
        "The page imports the console API's types with `import type`: its bundle holds nothing of the host, " +
        "and the server's answers and the page's reading of them are one set of types.",
      severity: 'error',
      from: { path: '^console/src/' },
      to: { path: '^core/console/api-types\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'host-folder-has-a-rank',
      comment:
        'Every host module sits in a ranked folder (or is core/index.ts): a new folder takes its place in ' +
        'HOST_RANKS before it imports anything.',
      severity: 'error',
      from: { path: '^core/', pathNot: under(HOST_RANKS.flat()) },
      to: {},
    },
    {
      name: 'no-unresolved',
      comment: 'An import the cruiser cannot resolve would slip past every rule above.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    // Relative to this file, so the cruiser runs the same from the rule fixtures' folder.
    tsConfig: { fileName: path.join(__dirname, 'tsconfig.json') },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
