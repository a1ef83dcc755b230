/**
 * execute_code's default limits live in boundary/code-limits.ts; the host's
 * config and createTestContext() read them there. config.schema.json and
 * docs/configuration.md cannot import them, so this holds their numbers equal.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { createTestContext } from 'toolshed/plugin';
import { DEFAULT_CODE_LIMITS } from '#internal/boundary/code-limits.js';
import { resolveConfig } from '#internal/core/config/config.js';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const KEYS = ['timeoutMs', 'maxToolCalls', 'memoryMb', 'maxOutputChars'] as const;

describe("execute_code's default limits", () => {
  it('are what a config without codeExecution resolves to', () => {
    const { tools, ...limits } = resolveConfig({}, undefined, os.tmpdir(), 2).codeExecution;
    expect(tools).toBeUndefined();
    expect(limits).toEqual(DEFAULT_CODE_LIMITS);
  });

  it("are what createTestContext()'s sandboxTools() reports", async () => {
    expect((await createTestContext().sandboxTools()).limits).toEqual(DEFAULT_CODE_LIMITS);
  });

  it("are the '(default N)' of each codeExecution key in config.schema.json", () => {
    const properties = JSON.parse(read('config.schema.json')).properties.codeExecution.properties as Record<
      string,
      { description: string }
    >;
    for (const key of KEYS)
      expect([key, properties[key]!.description.match(/\(default (\d+)\)/)?.[1]]).toEqual([
        key,
        String(DEFAULT_CODE_LIMITS[key]),
      ]);
  });

  it('are the defaults docs/configuration.md shows, in its resolved config and its table', () => {
    const doc = read('docs/configuration.md');
    const resolved = doc.match(/^ {2}codeExecution: \{ tools: undefined, (.*) \},$/m)?.[1];
    expect(resolved).toBe(KEYS.map((k) => `${k}: ${DEFAULT_CODE_LIMITS[k]}`).join(', '));
    const row = doc.match(
      /^\| `codeExecution\.timeoutMs` \/ `maxToolCalls` \/ `memoryMb` \/ `maxOutputChars` \| (.*?) \|/m,
    )?.[1];
    expect(row).toBe(KEYS.map((k) => `\`${DEFAULT_CODE_LIMITS[k]}\``).join(' / '));
  });
});
