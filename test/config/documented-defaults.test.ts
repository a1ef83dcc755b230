/**
 * docs/configuration.md opens its key reference with the config every default
 * resolves to. This holds that block to what `resolveConfig` really fills in
 * (on a 4-core machine, where `limits.threads` is 4), and to the schema's keys.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '#internal/core/config/config.js';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const block =
  read('docs/configuration.md').match(/## Keys\n\n```js\nexport default \{\n([\s\S]*?)\n\};\n```/)?.[1] ?? '';
/** Each `  key: value,` line of the block; `[...]` and `{...}` stand for "whatever you list" and are not values. */
const entries = [...block.matchAll(/^ {2}(\$?\w+): (.*),$/gm)].map(([, key, text]) => ({ key: key!, text: text! }));
/** Keys whose resolved value depends on where the host runs, not on a default. */
const PLACE_DEPENDENT: Record<string, string> = {
  root: 'resolved to an absolute path',
  cache: 'dir is the user cache folder',
};

describe("docs/configuration.md's resolved config", () => {
  const resolved = resolveConfig({}, undefined, os.tmpdir(), 4) as unknown as Record<string, unknown>;

  it('names every key of config.schema.json, and no other', () => {
    const schemaKeys = Object.keys(JSON.parse(read('config.schema.json')).properties).filter((k) => k !== '$schema');
    expect(entries.map((e) => e.key).sort()).toEqual(schemaKeys.sort());
  });

  it('shows the default each key resolves to', () => {
    const checked = entries.filter((e) => !e.text.includes('...') && !(e.key in PLACE_DEPENDENT));
    expect(checked.length).toBeGreaterThan(10);
    for (const { key, text } of checked) {
      const shown = new Function(`return (${text});`)() as unknown;
      expect([key, resolved[key]]).toEqual([key, shown]);
    }
  });
});
