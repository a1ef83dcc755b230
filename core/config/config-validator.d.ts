// Types of dist/core/config/config-validator.js, which scripts/build-config-validator.mjs
// generates from config.schema.json with ajv's standalone code.
import type { ErrorObject } from 'ajv';

/** Validates a config object; on failure `validate.errors` holds ajv's errors. */
export declare const validate: ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };
export default validate;
