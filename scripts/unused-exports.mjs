#!/usr/bin/env node
/**
 * Lists the exports of core/, boundary/ and sandbox/ that nothing imports.
 * Usage: node scripts/unused-exports.mjs > unused-exports.txt
 *
 * Every .ts/.js/.mjs file of the repository (but node_modules, dist and test
 * fixtures) is parsed with the TypeScript compiler; an import of `./x.js`,
 * `../dist/core/x.js`, `#internal/core/x.js` or a `toolshed/...` alias counts for the source file it
 * names. A namespace import, `export *` or dynamic `import()` counts as using
 * every export of its target, and so does `new URL('./x.js', import.meta.url)`
 * (a worker or child entry started by file name). Re-exports count as imports. The public entry
 * files are left out: what they export is the package's API.
 * Two lists: exports imported nowhere, and exports imported only by tests
 * (test/, plugins/<name>/test/, examples/<name>/test/).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SCANNED = ['core', 'boundary', 'sandbox'];
const ENTRIES = new Set(['core/index.ts', 'boundary/plugin.ts', 'core/mcp-server/index.ts']);
const isEntry = (file) => ENTRIES.has(file) || /^core\/adapters\/[^/]+\.ts$/.test(file);
const isTest = (file) => /^(test\/|plugins\/[^/]+\/test\/|examples\/[^/]+\/test\/)/.test(file);
const ALIASES = {
  toolshed: 'core/index.ts',
  'toolshed/plugin': 'boundary/plugin.ts',
  'toolshed/mcp': 'core/mcp-server/index.ts',
};

/** Every source file under `dir`, relative to the root. */
function walk(dir, out = []) {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['node_modules', 'dist', 'fixtures', '.git'].includes(entry.name)) walk(rel, out);
    } else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The source file a specifier names, relative to the root, or undefined outside core/, boundary/, sandbox/. */
function target(from, specifier) {
  if (ALIASES[specifier]) return ALIASES[specifier];
  const adapter = specifier.match(/^toolshed\/([\w-]+)$/);
  if (adapter) return `core/adapters/${adapter[1]}.ts`;
  // Tests reach internals through `#internal/<path in dist>` (vitest.config.ts, tsconfig.json paths).
  if (specifier.startsWith('#internal/')) return target('', `./dist/${specifier.slice('#internal/'.length)}`);
  if (!specifier.startsWith('.')) return undefined;
  let rel = path.relative(root, path.resolve(root, path.dirname(from), specifier));
  rel = rel.replace(/^dist\//, '').replace(/\.js$/, '.ts');
  return SCANNED.some((d) => rel.startsWith(`${d}/`)) ? rel : undefined;
}

const parse = (file) =>
  ts.createSourceFile(file, fs.readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
const hasExport = (node) => ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export;

/**
 * The names `file` exports by declaration (not re-exports; those are imports of their source); types marked ` (type)`.
 */
function exportsOf(source) {
  const names = [];
  for (const node of source.statements) {
    if (
      ts.isExportDeclaration(node) &&
      !node.moduleSpecifier &&
      node.exportClause &&
      ts.isNamedExports(node.exportClause)
    ) {
      for (const el of node.exportClause.elements) names.push(el.name.text);
    } else if (ts.isExportAssignment(node)) names.push('default');
    else if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && hasExport(node))
      names.push(`${node.name.text} (type)`);
    else if (ts.isVariableStatement(node) && hasExport(node)) {
      for (const decl of node.declarationList.declarations) if (ts.isIdentifier(decl.name)) names.push(decl.name.text);
    } else if (
      (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isEnumDeclaration(node)) &&
      hasExport(node) &&
      node.name
    ) {
      names.push(ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Default ? 'default' : node.name.text);
    }
  }
  return names;
}

/** uses.get(file).get(name) = the set of files importing `name` from `file`; name '*' = every export. */
const uses = new Map();
function use(file, name, by) {
  if (!uses.has(file)) uses.set(file, new Map());
  const names = uses.get(file);
  if (!names.has(name)) names.set(name, new Set());
  names.get(name).add(by);
}

const all = ['bin', 'core', 'boundary', 'sandbox', 'plugins', 'test', 'bench', 'examples', 'scripts']
  .filter((d) => fs.existsSync(path.join(root, d)))
  .flatMap((d) => walk(d));
for (const file of all) {
  const source = parse(file);
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const to = target(file, node.moduleSpecifier.text);
      if (to) {
        if (ts.isImportDeclaration(node)) {
          const clause = node.importClause;
          if (!clause)
            use(to, '*', file); // side-effect import
          else {
            if (clause.name) use(to, 'default', file);
            const bindings = clause.namedBindings;
            if (bindings && ts.isNamespaceImport(bindings)) use(to, '*', file);
            else if (bindings) for (const el of bindings.elements) use(to, (el.propertyName ?? el.name).text, file);
          }
        } else if (!node.exportClause || ts.isNamespaceExport(node.exportClause)) use(to, '*', file);
        else for (const el of node.exportClause.elements) use(to, (el.propertyName ?? el.name).text, file);
      }
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      const to = target(file, node.arguments[0].text);
      if (to) use(to, '*', file);
    } else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      // `new URL('./worker-entry.js', import.meta.url)`: a file started by name (a worker, a child's entry)
      const to = target(file, node.arguments[0].text);
      if (to) use(to, '*', file);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      const to = target(file, node.argument.literal.text);
      if (to) use(to, node.qualifier && ts.isIdentifier(node.qualifier) ? node.qualifier.text : '*', file);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const nowhere = [];
const testsOnly = [];
let total = 0;
for (const file of all
  .filter((f) => SCANNED.some((d) => f.startsWith(`${d}/`)) && f.endsWith('.ts') && !isEntry(f))
  .sort()) {
  const names = uses.get(file) ?? new Map();
  if (names.has('*')) continue;
  for (const shown of exportsOf(parse(file))) {
    const name = shown.replace(/ \(type\)$/, '');
    total++;
    const by = [...(names.get(name) ?? [])].filter((f) => f !== file);
    if (by.length === 0) nowhere.push(`${file}: ${shown}`);
    else if (by.every(isTest)) testsOnly.push(`${file}: ${shown}   (${by.join(', ')})`);
  }
}

console.log(`# Exports of core/, boundary/, sandbox/ (public entry files left out): ${total} checked`);
console.log(`# Produced by: node scripts/unused-exports.mjs`);
console.log(`\n## Imported nowhere, not even by a test (${nowhere.length})\n`);
for (const line of nowhere) console.log(line);
console.log(`\n## Imported only by tests (${testsOnly.length})\n`);
for (const line of testsOnly) console.log(line);
