/**
 * Where trusted plugins' manifests are extracted: one short-lived pool of
 * worker threads with an empty env, started on the first extraction and
 * closed once loading is over (a host whose manifests all came from the cache
 * never starts it).
 */
import type { ThreadPool } from './thread-pool.js';
import type { ManifestExtractor } from '../runner.js';
import type { RawManifest } from '../../../boundary/protocol.js';
import type { Pins } from '../../../boundary/pins.js';
import type { RunOutcome } from '../../../boundary/runner-failure.js';

/** The extraction pool of the thread tier. */
export class ManifestPool implements ManifestExtractor {
  private pool: ThreadPool | undefined;

  /** `start` makes the pool, on the first extraction. */
  constructor(private readonly start: () => ThreadPool) {}

  /** Whether a worker pool had to start (explain's `extractionPoolStarted`). */
  get started(): boolean {
    return this.pool !== undefined;
  }

  /**
   * Extracts the manifest of the plugin at `entry`, after its worker checks `pins`. A manifest
   * task has no soft deadline in the worker: `timeoutMs` is the hard one, and a module that
   * never finishes importing loses its worker.
   */
  extract(entry: string, timeoutMs: number, pins?: Pins): Promise<RunOutcome<RawManifest>> {
    this.pool ??= this.start();
    return this.pool.run<RawManifest>(
      { kind: 'manifest', entry, ...(pins ? { pins } : {}) },
      { key: entry, timeoutMs, hardMs: timeoutMs },
    );
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
