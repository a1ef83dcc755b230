// Types of dist/core/load/manifest-validator.js, which scripts/build-config-validator.mjs
// generates from core/load/manifest-schema.ts with ajv's standalone code.
import type { ErrorObject } from 'ajv';

/** Validates an extracted plugin manifest; on failure `validate.errors` holds ajv's errors. */
export declare const validate: ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };
export default validate;
