/**
 * config.schema.json (what a config file may say) and the `ToolshedConfig`
 * interface in core/config/config.ts (what the host's code reads) are written by
 * hand, side by side: this holds them in step. Both are walked into the same
 * list of key paths (`limits.breaker.failures`, `mcpServers.*.listing.tools`,
 * `plugins[].grant.fsRead`), the interface through the TypeScript compiler's
 * own type checker, so a key added on one side only fails here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

type Schema = {
  $ref?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
};

const schemaFile = fileURLToPath(new URL('../../config.schema.json', import.meta.url));
const configFile = fileURLToPath(new URL('../../core/config/config.ts', import.meta.url));
const rootSchema = JSON.parse(readFileSync(schemaFile, 'utf8')) as Schema & { definitions: Record<string, Schema> };

/** Every key path the schema allows: `a.b` for a property, `a.*` for a map's values, `a[]` for array items. */
function schemaKeyPaths(): Set<string> {
  const out = new Set<string>();
  const walk = (node: Schema, prefix: string, seen: Set<Schema>) => {
    if (node.$ref) node = rootSchema.definitions[node.$ref.replace('#/definitions/', '')]!;
    if (seen.has(node)) return;
    const inner = new Set(seen).add(node);
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const path = `${prefix ? `${prefix}.` : ''}${key}`;
      out.add(path);
      walk(child, path, inner);
    }
    if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${prefix}.*`, inner);
    if (node.items) walk(node.items, `${prefix}[]`, inner);
    for (const branch of [...(node.oneOf ?? []), ...(node.anyOf ?? [])]) walk(branch, prefix, inner);
  };
  walk(rootSchema, '', new Set());
  return out;
}

/** The key paths of a TypeScript type, written as schemaKeyPaths writes them; optional and union members included. */
function typePaths(
  checker: ts.TypeChecker,
  type: ts.Type,
  prefix: string,
  out: Set<string>,
  seen = new Set<ts.Type>(),
): Set<string> {
  type = checker.getNonNullableType(type);
  if (seen.has(type)) return out;
  seen = new Set(seen).add(type);
  const members = type.isUnion() ? type.types : [type];
  for (const member of members) {
    if (!(member.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection))) continue;
    if (checker.isArrayType(member)) {
      const [element] = checker.getTypeArguments(member as ts.TypeReference);
      if (element) typePaths(checker, element, `${prefix}[]`, out, seen);
      continue;
    }
    for (const property of checker.getPropertiesOfType(member)) {
      const key = `${prefix ? `${prefix}.` : ''}${property.name}`;
      out.add(key);
      typePaths(checker, checker.getTypeOfSymbol(property), key, out, seen);
    }
    const index = checker.getIndexInfoOfType(member, ts.IndexKind.String);
    if (index) typePaths(checker, index.type, `${prefix}.*`, out, seen);
  }
  return out;
}

function interfaceKeyPaths(): Set<string> {
  const program = ts.createProgram([configFile], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [], // the config's types need no @types/node, and loading it costs seconds
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(configFile)!;
  const symbol = checker
    .getExportsOfModule(checker.getSymbolAtLocation(source)!)
    .find((s) => s.name === 'ToolshedConfig');
  if (!symbol) throw new Error('core/config/config.ts no longer exports ToolshedConfig');
  return typePaths(checker, checker.getDeclaredTypeOfSymbol(symbol), '', new Set());
}

describe('config.schema.json and the ToolshedConfig interface', () => {
  const fromSchema = schemaKeyPaths();
  const fromInterface = interfaceKeyPaths();

  it('reads enough of both to compare them', () => {
    // A walker that silently stopped descending would make the comparison below vacuous.
    for (const path of [
      'limits.breaker.failures',
      'mcpServers.*.listing.descriptionChars',
      'plugins[].grant.fsRead',
      'search.sessions.maxTools',
      'approve.destructive',
    ]) {
      expect(fromSchema).toContain(path);
      expect(fromInterface).toContain(path);
    }
  });

  it('has no key in the schema that the interface lacks', () => {
    expect([...fromSchema].filter((p) => !fromInterface.has(p)).sort()).toEqual([]);
  });

  it('has no key in the interface that the schema lacks', () => {
    expect([...fromInterface].filter((p) => !fromSchema.has(p)).sort()).toEqual([]);
  });
});
