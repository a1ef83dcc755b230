#!/usr/bin/env node
// The code's shape in figures, for notes and reviews: lines per room, the longest functions,
// and per public entry point the exported names and the declaration files a user's compiler
// reads (the closure of dist/'s .d.ts imports). Run after `npm run build`:
//   node scripts/shape-report.mjs [--functions N] [--json]
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: { functions: { type: 'string', default: '10' }, json: { type: 'boolean', default: false } },
});
const sides = ['core', 'sandbox', 'boundary', 'console/src'];

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const lineCount = (path) => readFileSync(path, 'utf8').split('\n').length - 1;

/** A room is a folder directly under a side; a side's own files count as its room '.'. */
function rooms() {
  const sizes = new Map();
  for (const side of sides) {
    for (const file of sourceFiles(join(root, side))) {
      const rel = relative(join(root, side), file).split('/');
      const room = `${side}/${rel.length > 1 ? rel[0] : '.'}`;
      const entry = sizes.get(room) ?? { files: 0, lines: 0 };
      entry.files += 1;
      entry.lines += lineCount(file);
      sizes.set(room, entry);
    }
  }
  return [...sizes].map(([room, size]) => ({ room, ...size })).sort((a, b) => b.lines - a.lines);
}

function functionName(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return ts.isConstructorDeclaration(node) ? 'constructor' : '(anonymous)';
}

/** Every function in core/, sandbox/ and boundary/ with its length in lines, from its first line to its last. */
function functions() {
  const out = [];
  for (const side of ['core', 'sandbox', 'boundary']) {
    for (const file of sourceFiles(join(root, side))) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node) => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
          const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          out.push({ name: functionName(node), file: relative(root, file), line: first + 1, lines: last - first + 1 });
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return out.sort((a, b) => b.lines - a.lines);
}

function entries() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const out = [];
  for (const [name, target] of Object.entries(pkg.exports)) {
    if (typeof target !== 'object' || !target.types) continue;
    const entry = join(root, target.types);
    if (!existsSync(entry)) throw new Error(`${target.types} is missing: run npm run build first`);
    const program = ts.createProgram([entry], {
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    const checker = program.getTypeChecker();
    const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry));
    const names = symbol ? checker.getExportsOfModule(symbol).map((s) => s.getName()) : [];
    const closure = program.getSourceFiles().filter((f) => f.fileName.startsWith(join(root, 'dist'))).length;
    out.push({ entry: `toolshed${name === '.' ? '' : name.slice(1)}`, names: names.length, declarationFiles: closure });
  }
  return out;
}

const report = { rooms: rooms(), functions: functions(), entries: entries() };
const top = Number(values.functions);
if (values.json) {
  console.log(
    JSON.stringify(
      {
        ...report,
        functions: report.functions.slice(0, top),
        over80: report.functions.filter((f) => f.lines > 80).length,
      },
      null,
      2,
    ),
  );
} else {
  console.log('lines per room');
  for (const r of report.rooms)
    console.log(`  ${String(r.lines).padStart(6)}  ${String(r.files).padStart(3)} files  ${r.room}`);
  console.log(`\nlongest ${top} functions (${report.functions.filter((f) => f.lines > 80).length} over 80 lines)`);
  for (const f of report.functions.slice(0, top))
    console.log(`  ${String(f.lines).padStart(4)}  ${f.name}  ${f.file}:${f.line}`);
  console.log('\npublic entry points: exported names, declaration files in the closure');
  for (const e of report.entries)
    console.log(`  ${String(e.names).padStart(4)}  ${String(e.declarationFiles).padStart(4)}  ${e.entry}`);
}
