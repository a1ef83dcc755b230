// Build step: compiles config.schema.json into a standalone validator module
// (dist/core/load/config-validator.js), so starting a host does not load and run
// ajv's compiler just to check the config (about 120 ms; docs/performance.md).
// The module's errors are ajv ErrorObjects, exactly as a runtime compile gives.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';

const root = new URL('../', import.meta.url);
const schema = JSON.parse(readFileSync(new URL('config.schema.json', root), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false, strictNumbers: true, allowUnionTypes: true, code: { source: true, esm: true } });
const validate = ajv.compile(schema);
const source = standaloneCode.default ? standaloneCode.default(ajv, validate) : standaloneCode(ajv, validate);
mkdirSync(new URL('dist/core/load/', root), { recursive: true });
// ajv's ESM output still calls require() for its small runtime helpers.
const prelude = "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n";
writeFileSync(
  new URL('dist/core/load/config-validator.js', root),
  `// Generated from config.schema.json by scripts/build-config-validator.mjs. Do not edit.\n${prelude}${source.replace(/^"use strict";/, '')}`,
);
