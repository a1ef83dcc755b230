/**
 * The audit attributes of the dispatch spans (OpenTelemetry, the real SDK's in-memory exporter):
 * who the call is for (`enduser.id`, the issuer), the outcome code and the digests of the
 * arguments and result, on calls that ran and on calls refused before any hook; never the token.
 */
import { createHash } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixtureOptions } from '../helpers.js';

const TOKEN_MARKER = 'TOKEN-MARKER-9d2a-never-on-a-span';
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let host: ToolHost;
let alice: ToolHost;

beforeAll(async () => {
  trace.setGlobalTracerProvider(provider);
  host = await createToolHost(fixtureOptions(['notes']));
  alice = host.as({ subject: 'alice', issuer: 'https://issuer.test', scopes: [], claims: {}, token: TOKEN_MARKER });
});
afterAll(async () => {
  await alice.close();
  await host.close();
  await provider.shutdown();
  trace.disable();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const span = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)!;

describe('the dispatch span', () => {
  it('names the caller and carries the code and the digests of a call that ran', async () => {
    const text = await alice.dispatch('read_note', '{"id":"a"}');
    expect(span('execute_tool read_note').attributes).toMatchObject({
      'enduser.id': 'alice',
      'toolshed.identity.issuer': 'https://issuer.test',
      'toolshed.outcome.code': 'OK',
      'toolshed.arguments.sha256': sha256('{"id":"a"}'),
      'toolshed.result.sha256': sha256(text),
    });
  });

  it('carries them on a call refused before any hook, and names no one for a call without an identity', async () => {
    const refused = await alice.dispatch('no_such_tool', { b: 1, a: 2 });
    expect(span('execute_tool no_such_tool').attributes).toMatchObject({
      'enduser.id': 'alice',
      'toolshed.outcome.code': 'UNKNOWN_TOOL',
      'error.type': 'UNKNOWN_TOOL',
      'toolshed.arguments.sha256': sha256('{"a":2,"b":1}'),
      'toolshed.result.sha256': sha256(refused),
    });
    exporter.reset();
    await host.dispatch('list_notes', {});
    expect(span('execute_tool list_notes').attributes['enduser.id']).toBeUndefined();
  });

  it('never holds the token', () => {
    const values = exporter.getFinishedSpans().flatMap((s) => Object.values(s.attributes).map(String));
    expect(values.join('\n')).not.toContain(TOKEN_MARKER);
  });
});
