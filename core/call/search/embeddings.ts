/**
 * Tool vectors for hybrid tool search, from an embedder the operator supplies
 * (`search.embedder`): toolshed ships and downloads no model. Vectors are kept
 * by a sha256 of (model, tool text), so a tool whose text did not change is
 * never embedded again; they are computed in the background, in batches, after
 * the index syncs, and a search never waits for them (a tool without its
 * vector yet is ranked lexically only). The query's vector is computed at
 * search time (a few recent ones are kept). An embedder that throws, times out
 * or answers with the wrong shape turns searches lexical until it answers
 * again, with one warning.
 */
import { createHash } from 'node:crypto';
import type { Embedder } from '../../config/public-types.js';
import type { EmbeddingsReport } from '../public-types.js';
import type { IndexedTool } from './search-index.js';
import { humps } from './search-text.js';

/** Characters of a tool's text sent to the embedder: past this, a longer description adds cost, not meaning. */
const TEXT_CHARS = 2000;

/** Query vectors kept (least recently used dropped first). */
const QUERY_CACHE = 128;

/**
 * After a failure, how long searches skip the embedder (and the background fill waits), unless the index syncs again.
 */
const RETRY_MS = 60_000;

/** The text embedded for a tool: its name split into words, its description and its parameter names. */
export function embeddingText(tool: IndexedTool): string {
  const { name, description, parameters } = tool.definition;
  const words = name
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .flatMap(humps)
    .join(' ')
    .toLowerCase();
  const properties =
    parameters && typeof parameters === 'object' && parameters.properties && typeof parameters.properties === 'object'
      ? Object.keys(parameters.properties)
      : [];
  const text = [`${words}: ${description}`, properties.length ? `Parameters: ${properties.join(', ')}` : '']
    .filter(Boolean)
    .join('\n');
  return text.slice(0, TEXT_CHARS);
}

/** The key a vector is kept under: sha256 of the model and the text. */
export function vectorKey(model: string, text: string): string {
  return createHash('sha256').update(model).update('\0').update(text).digest('hex');
}

/** A unit-length copy of `vector` (a zero vector stays zero), so cosine similarity is a dot product. */
function normalized(vector: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  if (norm > 0) for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

/** Cosine similarity of two unit-length vectors of one dimension. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/**
 * An answer that is not one vector per text, all of `dimension` (when known) finite numbers: why, or undefined when it
 * is.
 */
function shapeProblem(answer: unknown, count: number, dimension: number | undefined): string | undefined {
  if (!Array.isArray(answer)) return `returned ${answer === null ? 'null' : typeof answer}, not an array of vectors`;
  if (answer.length !== count) return `returned ${answer.length} vectors for ${count} texts`;
  let want = dimension;
  for (const [i, vector] of answer.entries()) {
    if (!Array.isArray(vector) && !(ArrayBuffer.isView(vector) && !(vector instanceof DataView)))
      return `vector ${i} is not an array of numbers`;
    const numbers = vector as ArrayLike<unknown>;
    if (numbers.length === 0) return `vector ${i} is empty`;
    want ??= numbers.length;
    if (numbers.length !== want) return `vector ${i} has ${numbers.length} dimensions, not ${want}`;
    for (let j = 0; j < numbers.length; j++)
      if (typeof numbers[j] !== 'number' || !Number.isFinite(numbers[j]))
        return `vector ${i} holds a non-finite number at ${j}`;
  }
  return undefined;
}

/** A failure of the embedder, with the message explain shows. */
class EmbedderFailure extends Error {}

/**
 * The vectors of one host's tools. Each search state (the host's, each view's)
 * says which texts it needs (`want`); a vector no state needs any more is
 * dropped, so memory follows the exposed tools.
 */
export class EmbeddingStore {
  private readonly vectors = new Map<string, Float32Array>();
  /** texts wanted without a vector, oldest first */
  private readonly queue = new Map<string, string>();
  private readonly wanted = new Map<object, ReadonlySet<string>>();
  private readonly queries = new Map<string, Float32Array>();
  private readonly closing = new AbortController();
  private dimension: number | undefined;
  private running: Promise<void> | undefined;
  private scheduled: NodeJS.Immediate | undefined;
  private failure: string | undefined;
  private warned = false;
  private retryAt = 0;

  constructor(
    private readonly embedder: Required<Embedder>,
    private readonly warn: (message: string) => void,
  ) {}

  /** Makes `owner` need exactly `texts` (by key); new ones are queued and embedded in the background. */
  want(owner: object, texts: ReadonlyMap<string, string>): void {
    this.wanted.set(owner, new Set(texts.keys()));
    for (const [key, text] of texts) if (!this.vectors.has(key)) this.queue.set(key, text);
    this.dropUnwanted();
    // A sync is a new chance for an embedder that failed.
    this.retryAt = 0;
    this.schedule();
  }

  /** `owner` needs nothing any more (a view closed). */
  release(owner: object): void {
    if (this.wanted.delete(owner)) this.dropUnwanted();
  }

  /** Restarts the background fill if it stopped at a failure more than a minute ago (a search calls this). */
  resume(): void {
    this.schedule();
  }

  /** The vector of `key`, once computed. */
  vector(key: string): Float32Array | undefined {
    return this.vectors.get(key);
  }

  /**
   * The query's vector, or undefined when the search is to rank lexically: the
   * embedder failed (now or less than a minute ago), or `signal` (the call's) aborted.
   */
  async queryVector(query: string, signal?: AbortSignal): Promise<Float32Array | undefined> {
    const cached = this.queries.get(query);
    if (cached) {
      this.queries.delete(query);
      this.queries.set(query, cached);
      return cached;
    }
    if (this.failure !== undefined && Date.now() < this.retryAt) return undefined;
    try {
      const [vector] = await this.embed([query], signal);
      this.queries.set(query, vector!);
      if (this.queries.size > QUERY_CACHE) this.queries.delete(this.queries.keys().next().value!);
      this.schedule();
      return vector;
    } catch (error) {
      if (!(error instanceof EmbedderFailure)) return undefined;
      this.failed(error.message);
      return undefined;
    }
  }

  /** The explain section. */
  report(): EmbeddingsReport {
    return {
      model: this.embedder.model,
      vectors: this.vectors.size,
      pending: this.queue.size,
      ...(this.failure !== undefined ? { failed: this.failure } : {}),
    };
  }

  /** Aborts the embedder calls in flight and stops the background fill. */
  async close(): Promise<void> {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.closing.abort(new Error('the host is closing'));
    await this.running;
  }

  private dropUnwanted(): void {
    const needed = new Set<string>();
    for (const keys of this.wanted.values()) for (const key of keys) needed.add(key);
    for (const key of this.vectors.keys()) if (!needed.has(key)) this.vectors.delete(key);
    for (const key of this.queue.keys()) if (!needed.has(key)) this.queue.delete(key);
  }

  /** Starts the background fill after the current search has answered, unless it runs or waits for a retry. */
  private schedule(): void {
    if (this.running || this.scheduled || !this.queue.size || this.closing.signal.aborted) return;
    if (this.failure !== undefined && Date.now() < this.retryAt) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      this.running = this.fill().finally(() => {
        this.running = undefined;
      });
    });
  }

  /** Embeds the queue batch by batch; stops at the first failure (the queue stays, for a retry). */
  private async fill(): Promise<void> {
    while (this.queue.size && !this.closing.signal.aborted) {
      const batch = [...this.queue].slice(0, this.embedder.batchSize);
      let vectors: Float32Array[];
      try {
        vectors = await this.embed(batch.map(([, text]) => text));
      } catch (error) {
        if (error instanceof EmbedderFailure) this.failed(error.message);
        return;
      }
      for (const [i, [key]] of batch.entries()) {
        // Dropped while in flight (its tool went away): not kept.
        if (this.queue.delete(key)) this.vectors.set(key, vectors[i]!);
      }
    }
  }

  /** One embedder call: bounded by timeoutMs and the host's close, its answer checked and normalised. */
  private async embed(texts: string[], callSignal?: AbortSignal): Promise<Float32Array[]> {
    const { embed, timeoutMs, model } = this.embedder;
    const controller = new AbortController();
    const signals = [this.closing.signal, ...(callSignal ? [callSignal] : [])];
    let timer: NodeJS.Timeout | undefined;
    let stop: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      const abort = (reason: unknown) => {
        controller.abort(reason);
        reject(reason);
      };
      timer = setTimeout(
        () =>
          abort(
            new EmbedderFailure(
              `the embedder (${model}) did not answer within ${timeoutMs} ms (search.embedder.timeoutMs)`,
            ),
          ),
        timeoutMs,
      );
      const onAbort = (signal: AbortSignal) => () => abort(signal.reason ?? new Error('aborted'));
      const listeners = signals.map((signal) => [signal, onAbort(signal)] as const);
      for (const [signal, listener] of listeners) {
        if (signal.aborted) listener();
        else signal.addEventListener('abort', listener, { once: true });
      }
      stop = () => {
        for (const [signal, listener] of listeners) signal.removeEventListener('abort', listener);
      };
    });
    stopped.catch(() => {});
    try {
      let answer: unknown;
      try {
        answer = await Promise.race([
          Promise.resolve().then(() => embed(texts, { signal: controller.signal })),
          stopped,
        ]);
      } catch (error) {
        if (error instanceof EmbedderFailure || controller.signal.aborted) throw error;
        throw new EmbedderFailure(
          `the embedder (${model}) failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      const problem = shapeProblem(answer, texts.length, this.dimension);
      if (problem) throw new EmbedderFailure(`the embedder (${model}) ${problem}`);
      const vectors = (answer as ArrayLike<number>[]).map(normalized);
      this.dimension ??= vectors[0]!.length;
      this.recovered();
      return vectors;
    } finally {
      clearTimeout(timer);
      stop?.();
    }
  }

  /** Records a failure; warns on the first one since the embedder last answered. */
  private failed(message: string): void {
    this.failure = message;
    this.retryAt = Date.now() + RETRY_MS;
    if (this.warned) return;
    this.warned = true;
    this.warn(`${message}; tool_search ranks lexically until it answers again (explain: search.embeddings)`);
  }

  private recovered(): void {
    this.failure = undefined;
    this.warned = false;
  }
}
