/**
 * Generates the plugin packages the benchmarks load, as real package folders
 * in a temp directory (the same shape a third-party plugin has).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { echo, spin } from './handlers.js';

const N_PARAMS = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 0 } },
  required: ['n'],
  additionalProperties: false,
};

const TOOL_PARAMS = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What to look for' },
    limit: { type: 'integer', minimum: 1, maximum: 100, description: 'At most this many results' },
    mode: { enum: ['fast', 'full'] },
  },
  required: ['query'],
  additionalProperties: false,
};

/** Writes a plugin package (package.json + index.js) and returns its folder. */
export function writePlugin(dir, name, source) {
  mkdirSync(dir, { recursive: true });
  const pkg = {
    name,
    version: '1.0.0',
    type: 'module',
    main: 'index.js',
    toolshed: { apiVersion: 1 },
    peerDependencies: { toolshed: '^1' },
  };
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(path.join(dir, 'index.js'), source);
  return dir;
}

/** A plugin with `<prefix>echo` (trivial) and `<prefix>spin` (CPU-bound), both callable from execute_code. */
export function writeBenchPlugin(dir, { name = 'toolshed-plugin-bench', prefix = 'bench_' } = {}) {
  const tool = (suffix, description, handler) =>
    `    { name: '${prefix}${suffix}', toolset: 'bench', sandbox: true, description: '${description}', ` +
    `parameters: ${JSON.stringify(N_PARAMS)}, handler: ${handler} },`;
  const source = `export default {
  apiVersion: 1,
  toolsets: { bench: { description: 'Benchmark tools' } },
  tools: [
${tool('echo', 'Returns n.', echo.toString())}
${tool('spin', 'Burns CPU for n iterations.', spin.toString())}
  ],
};
`;
  return writePlugin(dir, name, source);
}

function spread(total, parts, index) {
  return Math.floor(total / parts) + (index < total % parts ? 1 : 0);
}

/**
 * A registry of `plugins` packages holding `tools` tools and `checks` check
 * functions (each check shared by up to two tools). Checks of every 13th
 * plugin fail; the first check passes until `flagFile` exists. Returns the folders.
 */
export function writeRegistry(root, { plugins = 40, tools = 300, checks = 60, flagFile } = {}) {
  const name = (p, t) => `p${String(p).padStart(2, '0')}_tool_${t}`;
  const all = [];
  for (let p = 0; p < plugins; p++) for (let t = 0; t < spread(tools, plugins, p); t++) all.push(name(p, t));
  const dirs = [];
  for (let p = 0, seen = 0; p < plugins; p++) {
    const nTools = spread(tools, plugins, p);
    const nChecks = spread(checks, plugins, p);
    const checkSource = [];
    for (let c = 0; c < nChecks; c++) {
      let body = 'true';
      if (p % 13 === 5) body = "({ ok: false, reason: 'bench: backend unreachable' })";
      else if (p === 0 && c === 0 && flagFile) body = `!existsSync(${JSON.stringify(flagFile)})`;
      checkSource.push(`const c${c} = async () => ${body};`);
    }
    const toolSource = [];
    for (let t = 0; t < nTools; t++, seen++) {
      const next = all[(seen + 1) % all.length];
      const fields = [
        `name: '${name(p, t)}'`,
        `toolset: 'ts${p}'`,
        `description: ['Tool ${t} of plugin ${p}: looks up records matching a query.', { ifAvailable: ['${next}'], ` +
          `text: 'For bulk lookups prefer ${next}.' }]`,
        'parameters: PARAMS',
        'handler',
      ];
      if (t < 2 * nChecks) fields.push(`check: c${t % nChecks}`);
      if (seen % 10 === 9) fields.push("requires: { env: ['BENCH_API_KEY'] }");
      toolSource.push(`    { ${fields.join(', ')} },`);
    }
    const group =
      p % 10 === 0
        ? `, group${p / 10}: { description: 'Group ${p / 10}', includes: [` +
          `${Array.from({ length: Math.min(10, plugins - p) }, (_, k) => `'ts${p + k}'`).join(', ')}] }`
        : '';
    const source = `import { existsSync } from 'node:fs';
const PARAMS = ${JSON.stringify(TOOL_PARAMS)};
const handler = async (args) => ({ ok: true, query: args.query });
${checkSource.join('\n')}
export default {
  apiVersion: 1,
  toolsets: { ts${p}: { description: 'Toolset of plugin ${p}' }${group} },
  tools: [
${toolSource.join('\n')}
  ],
};
`;
    dirs.push(writePlugin(path.join(root, `reg-${p}`), `toolshed-plugin-bench-reg-${p}`, source));
  }
  return dirs;
}
