import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  newQuickJSWASMModule,
  newVariant,
  RELEASE_SYNC,
  type CustomizeVariantOptions,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';

/** WebAssembly pages are 64 KiB. */
const PAGE_BYTES = 64 * 1024;
/** The release build's initial memory; it cannot start with less. */
const INITIAL_PAGES = 256;
/** Part of linear memory that is not heap: static data and the C stack (measured ~5.2 MiB). */
const RESERVED_MB = 6;
/** The release build is compiled for at most 2 GiB of linear memory. */
const MAX_PAGES = 32768;
/** Linear memory never shrinks, so an instance a run grew past this is not kept idle. */
const MAX_IDLE_BYTES = 64 * 1024 * 1024;

/** A QuickJS WebAssembly instance, used by one run at a time, with its memory capped. */
export interface Engine {
  module: QuickJSWASMModule;
  /** The heap size the cap was computed for. */
  memoryMb: number;
  /** What the Emscripten glue printed to stderr (e.g. an `Aborted(...)` during teardown). */
  diagnostics: string[];
  /**
   * Set when the heap asked for more linear memory than the cap allows. Emscripten first asks
   * with some headroom, so this alone does not prove a failed allocation; together with a thrown
   * `null` (QuickJS's out-of-memory when even its error cannot be allocated) it does. The run
   * that acquires the engine resets it.
   */
  heapExhausted: boolean;
  /** Current size of the instance's linear memory. */
  linearBytes(): number;
}

/** Thrown when QuickJS cannot be loaded or instantiated on this thread. */
export class EngineUnavailableError extends Error {
  /** Stable code for callers that must not match on message text. */
  readonly code = 'SANDBOX_UNAVAILABLE';
  constructor(cause: unknown) {
    super(`QuickJS could not start: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'EngineUnavailableError';
  }
}

/** A value of `T`, not a loader function returning one. */
type Loaded<T> = Exclude<NonNullable<T>, (...args: never[]) => unknown>;
type CompiledWasm = Loaded<CustomizeVariantOptions['wasmModule']>;
type WasmMemory = Loaded<CustomizeVariantOptions['wasmMemory']>;

/**
 * The project compiles without the DOM lib, where the `WebAssembly` namespace lives, so the
 * global is reached through this narrow view typed after quickjs-emscripten's own options.
 */
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      compile(bytes: Uint8Array): Promise<CompiledWasm>;
      Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
    };
  }
).WebAssembly;

let compiled: Promise<CompiledWasm> | undefined;
/** At most one idle, known-clean instance per heap size, so most runs skip instantiation. */
const idle = new Map<number, Engine>();

/**
 * Takes an idle instance for this heap size, or starts a new one.
 *
 * An instance serves one run at a time, not every run of the thread: in quickjs-emscripten
 * 0.32.0 the runtime's `setMemoryLimit` counts only allocation overhead (the build has no
 * `malloc_usable_size`), so a script can allocate gigabytes under a "32 MB" limit. A capped
 * `WebAssembly.Memory` makes malloc fail instead and QuickJS throws a clean out-of-memory
 * error, but that cap covers the whole instance, so two runs must never share one.
 */
export async function acquireEngine(memoryMb: number): Promise<Engine> {
  const engine = idle.get(memoryMb);
  if (engine === undefined) return startEngine(memoryMb);
  idle.delete(memoryMb);
  engine.heapExhausted = false;
  return engine;
}

/**
 * Hands an instance back after its runtime was disposed. Only an instance whose teardown freed
 * everything is kept: after an Emscripten abort (upstream #257/#269, `JS_FreeRuntime` asserting
 * after an out-of-memory error or allocation-heavy promise jobs) or a host exception inside the
 * interpreter, its state cannot be trusted and it is left to the garbage collector.
 */
export function releaseEngine(engine: Engine, clean: boolean): void {
  if (!clean || engine.diagnostics.length > 0 || idle.has(engine.memoryMb) || engine.linearBytes() > MAX_IDLE_BYTES)
    return;
  idle.set(engine.memoryMb, engine);
}

/** Starts a new QuickJS instance whose heap cannot grow much past `memoryMb`. */
async function startEngine(memoryMb: number): Promise<Engine> {
  try {
    const wasmModule = await compileOnce();
    const wantedPages = Math.ceil(((RESERVED_MB + memoryMb) * 1024 * 1024) / PAGE_BYTES);
    const maxPages = Math.min(MAX_PAGES, Math.max(INITIAL_PAGES, wantedPages));
    const wasmMemory = new wasm.Memory({ initial: INITIAL_PAGES, maximum: maxPages });
    const state = { diagnostics: [] as string[], heapExhausted: false };
    // Emscripten's sbrk calls `memory.grow` and turns a refusal into a failed malloc.
    const grow = wasmMemory.grow.bind(wasmMemory);
    wasmMemory.grow = (pages: number): number => {
      try {
        return grow(pages);
      } catch (error) {
        state.heapExhausted = true;
        throw error;
      }
    };
    // print/printErr are Emscripten options the typings omit; without them the glue writes
    // straight to the worker's stderr.
    const glue = { wasmMemory, print: () => {}, printErr: (text: string) => void state.diagnostics.push(text) };
    const variant = newVariant(RELEASE_SYNC, { wasmModule, emscriptenModule: glue });
    const module = await newQuickJSWASMModule(variant);
    return Object.assign(state, { module, memoryMb, linearBytes: () => wasmMemory.buffer.byteLength });
  } catch (error) {
    throw new EngineUnavailableError(error);
  }
}

function compileOnce(): Promise<CompiledWasm> {
  compiled ??= compileWasm().catch((error: unknown) => {
    // A failed load (e.g. a missing file mid-install) must not stick for the thread's lifetime.
    compiled = undefined;
    throw error;
  });
  return compiled;
}

async function compileWasm(): Promise<CompiledWasm> {
  // The variant package is a dependency of quickjs-emscripten, so resolve it from there
  // rather than relying on npm hoisting it next to us.
  const fromHere = createRequire(import.meta.url);
  const fromQuickJS = createRequire(fromHere.resolve('quickjs-emscripten'));
  const bytes = await readFile(fromQuickJS.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'));
  return wasm.compile(bytes);
}
