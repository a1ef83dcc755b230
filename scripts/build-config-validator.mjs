// Build step: compiles config.schema.json, and the plugin manifest schema
// (core/load/manifest-schema.ts, from its compiled module), into standalone validator
// modules (dist/core/config/config-validator.js, dist/core/load/manifest-validator.js), so starting a
// host does not load and run ajv's compiler just to check the config (about 120 ms;
// docs/performance.md) or to validate cached manifests again (a cache holds no trust).
// The modules' errors are ajv ErrorObjects, exactly as a runtime compile gives.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';

const root = new URL('../', import.meta.url);
mkdirSync(new URL('dist/core/config/', root), { recursive: true });
mkdirSync(new URL('dist/core/load/', root), { recursive: true });
// ajv's ESM output still calls require() for its small runtime helpers.
const prelude = "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n";

function emit(schema, file, from) {
  // file: relative to dist/
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    strictNumbers: true,
    allowUnionTypes: true,
    code: { source: true, esm: true },
  });
  const validate = ajv.compile(schema);
  const source = standaloneCode.default ? standaloneCode.default(ajv, validate) : standaloneCode(ajv, validate);
  writeFileSync(
    new URL(`dist/${file}`, root),
    `// Generated from ${from} by scripts/build-config-validator.mjs. Do not edit.\n${prelude}` +
      `${source.replace(/^"use strict";/, '')}`,
  );
}

emit(
  JSON.parse(readFileSync(new URL('config.schema.json', root), 'utf8')),
  'core/config/config-validator.js',
  'config.schema.json',
);
const { manifestSchema } = await import(new URL('dist/core/load/manifest-schema.js', root).href);
emit(manifestSchema, 'core/load/manifest-validator.js', 'core/load/manifest-schema.ts');
