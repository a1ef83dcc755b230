/**
 * The OpenTelemetry API is loaded only once an SDK has registered a tracer
 * provider, so a host that nobody traces does not pay for it at startup. A
 * provider registered after the host was created is still found by the next
 * dispatch, and `trace.disable()` turns the spans off again.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolHost, type ToolHost } from 'toolshed';
import { fixtureOptions } from '../helpers.js';

const require = createRequire(import.meta.url);
const apiLoaded = () => require.resolve('@opentelemetry/api') in require.cache;

let host: ToolHost;

beforeAll(async () => {
  host = await createToolHost(fixtureOptions(['notes']));
});
afterAll(async () => {
  await host.close();
});

describe('an SDK registered after the host started', () => {
  it('is not needed to start and call: the API stays unloaded until something registers', async () => {
    expect(await host.dispatch('read_note', { id: 'a' })).toBe('note a');
    expect(apiLoaded()).toBe(false);
  });

  it('is found by the next dispatch, and trace.disable() stops the spans again', async () => {
    const { trace } = await import('@opentelemetry/api');
    const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
      '@opentelemetry/sdk-trace-base'
    );
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    try {
      await host.dispatch('read_note', { id: 'a' });
      expect(
        exporter
          .getFinishedSpans()
          .map((s) => s.name)
          .sort(),
      ).toEqual(['execute_tool read_note', 'toolshed.worker read_note']);
      trace.disable();
      exporter.reset();
      await host.dispatch('read_note', { id: 'a' });
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      trace.disable();
      await provider.shutdown();
    }
  });
});
