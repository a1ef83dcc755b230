/**
 * A stateless replica killed (kill -9) under load: 20 clients of both eras
 * (2025-era SDK 1.x and 2026-07-28 SDK v2) each run the kitchen's `slow` tool
 * through the shipped haproxy configuration to three replicas, and one
 * replica dies mid-call. Only the calls in flight on it fail, and each fails
 * as soon as its connection is cut: a reply is one JSON body, so nothing is
 * left waiting on a stream that will never end (before, 2025-era replies were
 * SSE streams, and a cut stream waited for the client's timeout).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  killLeftoversAfterAll,
  callsInFlight,
  freePort,
  startHaproxy,
  startReplica,
  type Balancer,
  type Replica,
} from '../support/fleet.js';
import { legacyClient, modernClient, proxyProject, shipped, textOf } from './proxy-setup.js';

killLeftoversAfterAll();

/** How long each call runs: long enough to be in flight when the replica dies. */
const SLOW_MS = 8_000;
/** The clients' own deadline: a call that hangs on a cut stream ends only here. */
const CLIENT_TIMEOUT_MS = 30_000;
const CLIENTS = 20;

// Eight workers each: every call a replica gets runs at once.
const project = proxyProject('toolshed-proxy-kill-', 8);
const cleanups: Array<() => Promise<unknown> | unknown> = [];
let replicas: Replica[];
let balancer: Balancer;

beforeAll(async () => {
  const port = await freePort();
  replicas = await Promise.all(
    [0, 1, 2].map(() =>
      startReplica({
        cwd: project.dir,
        config: project.config,
        stateless: true,
        args: ['--public-url', `http://127.0.0.1:${port}/mcp`],
      }),
    ),
  );
  for (const replica of replicas) cleanups.push(() => replica.stop());
  balancer = await startHaproxy(
    shipped('haproxy/stateless.cfg'),
    replicas.map((replica) => replica.address),
    project.dir,
    undefined,
    port,
  );
  cleanups.push(() => balancer.stop());
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(
    cleanups
      .splice(0)
      .reverse()
      .map((cleanup) => cleanup()),
  );
  project.cleanup();
}, 60_000);

/** One call's outcome: its text, or its error; and when it settled, counted from the kill. */
interface Outcome {
  era: 'legacy' | 'modern';
  text?: string;
  error?: string;
  afterKillMs: number;
}

it('a replica killed under load fails only its calls in flight, each at once, for both eras', async () => {
  const legacy = await Promise.all(Array.from({ length: CLIENTS / 2 }, () => legacyClient(balancer.url)));
  const modern = await Promise.all(Array.from({ length: CLIENTS / 2 }, () => modernClient(balancer.url)));
  for (const client of [...legacy.map(({ client }) => client), ...modern]) cleanups.push(() => client.close());
  let killedAt = Number.POSITIVE_INFINITY;
  const settle = (era: Outcome['era'], call: Promise<unknown>): Promise<Outcome> =>
    call.then(
      (result) => ({ era, text: textOf(result), afterKillMs: Date.now() - killedAt }),
      (error: Error) => ({ era, error: error.message, afterKillMs: Date.now() - killedAt }),
    );
  const args = { name: 'slow', arguments: { ms: SLOW_MS } };
  const calls = [
    ...legacy.map(({ client }) => settle('legacy', client.callTool(args, undefined, { timeout: CLIENT_TIMEOUT_MS }))),
    ...modern.map((client) => settle('modern', client.callTool(args, { timeout: CLIENT_TIMEOUT_MS }))),
  ];
  // Every call has reached its replica and is running (SLOW_MS is far off).
  await expect
    .poll(async () => (await Promise.all(replicas.map(callsInFlight))).reduce((a, b) => a + b, 0), { timeout: 20_000 })
    .toBe(CLIENTS);
  replicas[0]!.kill();
  killedAt = Date.now();
  const outcomes = await Promise.all(calls);
  const failed = outcomes.filter((outcome) => outcome.error !== undefined);
  const summary = {
    succeeded: outcomes.length - failed.length,
    failed: failed.length,
    // A call that failed before the slow tool could have finished on a live replica failed fast;
    // one that failed later waited on a cut stream.
    hung: failed
      .filter((outcome) => outcome.afterKillMs >= SLOW_MS)
      .map((outcome) => `${outcome.era}: ${outcome.error}`),
  };
  expect(summary.hung).toEqual([]);
  // Some calls were on the killed replica (round robin over three) and failed; the others all completed.
  expect(summary.failed).toBeGreaterThan(0);
  expect(summary.failed).toBeLessThanOrEqual(CLIENTS / 2);
  expect(
    outcomes.filter((outcome) => outcome.error === undefined).every((outcome) => outcome.text === `waited ${SLOW_MS}`),
  ).toBe(true);
}, 120_000);
