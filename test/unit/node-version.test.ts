/**
 * The suite runs on the Node that started it. The agent-client tests install Node 26 as a
 * package (node-26, test/clients/harness.ts), whose `node` lands in node_modules/.bin: an npm
 * script or npx puts that folder first on PATH, so `vitest` started that way runs on 26
 * whatever Node the machine has. `npm test` and .ci/run start vitest with their own Node;
 * .ci/run also names the version it expects in TOOLSHED_EXPECT_NODE.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE_NODE = fileURLToPath(new URL('../../node_modules/node-26/bin/node', import.meta.url));

describe('the Node the suite runs on', () => {
  it("is the Node that started the run, not the agent clients' packaged Node 26", () => {
    expect(realpathSync(process.execPath)).not.toBe(realpathSync(PACKAGE_NODE));
    const expected = process.env.TOOLSHED_EXPECT_NODE;
    if (expected) expect(process.version).toBe(expected);
  });
});
