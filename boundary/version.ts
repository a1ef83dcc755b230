/** The running toolshed version and the plugin API it provides. */
import { readFileSync } from 'node:fs';

/** This package's version, read from its package.json. */
export const TOOLSHED_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The integer plugin API version plugins declare in `toolshed.apiVersion`. */
export const PLUGIN_API_VERSION = 1;
