import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, VmFunctionImplementation } from 'quickjs-emscripten';
import { BOOTSTRAP_SOURCE } from './bootstrap.js';
import type { Engine } from './engine.js';
import { SEARCH_FUNCTION, type CodeToolSpec } from './types.js';

/** Names a tool must match to be installed (the plugin contract's tool-name pattern). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/**
 * QuickJS's own stack limit. It must stay well below the host thread's native stack: wasm
 * frames live there, and past it V8 throws a RangeError out of the middle of the interpreter.
 * 256 KiB allows ~1,400 plain JS frames and stays clean on a 1 MiB main-thread stack for
 * ordinary recursion; pathological nesting (e.g. 100k nested parentheses) can still exhaust
 * the host stack, which the session reports as SANDBOX_CRASHED.
 */
const MAX_STACK_BYTES = 256 * 1024;

/** Host functions the bootstrap closes over; the script itself never sees them. */
interface HostBridge {
  call: VmFunctionImplementation<QuickJSHandle>;
  print: VmFunctionImplementation<QuickJSHandle>;
  done: VmFunctionImplementation<QuickJSHandle>;
}

/** A runtime and context with `tools` and `console` installed, and the handle that starts a script. */
export interface SandboxContext {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  /** `start(main)` from the bootstrap. */
  start: QuickJSHandle;
  /** `deliver(ticket, ok, text)` from the bootstrap: settles the tool call `ticket`. */
  deliver: QuickJSHandle;
  /** Names that were installed, in order (invalid and duplicate names are skipped). */
  installed: string[];
  /** the host tool behind `tools.search`, when it was installed */
  searchTool?: string;
}

/**
 * Creates a runtime and context in `engine`, applies the limits, and installs the tools.
 * Handles are disposed on every path; on failure the runtime is disposed too.
 */
export function createSandboxContext(
  engine: Engine,
  tools: CodeToolSpec[],
  memoryMb: number,
  bridge: HostBridge,
  shouldInterrupt: () => boolean,
  searchTool?: string,
): SandboxContext {
  const runtime = engine.module.newRuntime();
  try {
    runtime.setMemoryLimit(memoryMb * 1024 * 1024);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    runtime.setInterruptHandler(shouldInterrupt);
    const context = runtime.newContext();
    try {
      const installed = installableNames(tools);
      // A tool that is itself named `search` keeps the name; tools.search is then not installed.
      const search =
        searchTool !== undefined && TOOL_NAME.test(searchTool) && !installed.includes(SEARCH_FUNCTION)
          ? searchTool
          : undefined;
      const { start, deliver } = install(context, bridge, installed, search);
      return { runtime, context, start, deliver, installed, ...(search ? { searchTool: search } : {}) };
    } catch (error) {
      disposeQuietly(context);
      throw error;
    }
  } catch (error) {
    disposeQuietly(runtime);
    throw error;
  }
}

/** Keeps a failing teardown (an Emscripten abort) from hiding the error that caused it. */
function disposeQuietly(resource: { dispose(): void }): void {
  try {
    resource.dispose();
  } catch {
    // The caller rethrows the original error, and the instance is not reused.
  }
}

function installableNames(tools: CodeToolSpec[]): string[] {
  const names = new Set<string>();
  for (const tool of tools) if (TOOL_NAME.test(tool.name)) names.add(tool.name);
  return [...names];
}

function install(
  context: QuickJSContext,
  bridge: HostBridge,
  names: string[],
  searchTool: string | undefined,
): { start: QuickJSHandle; deliver: QuickJSHandle } {
  const installer = context.unwrapResult(
    context.evalCode(BOOTSTRAP_SOURCE, 'bootstrap.js', { type: 'global', strict: true }),
  );
  const args = [
    context.newFunction('call', bridge.call),
    context.newFunction('print', bridge.print),
    context.newFunction('done', bridge.done),
    context.newString(JSON.stringify(names)),
    context.newString(searchTool ?? ''),
  ];
  try {
    const installed = context.unwrapResult(context.callFunction(installer, context.undefined, args));
    try {
      return { start: context.getProp(installed, 'start'), deliver: context.getProp(installed, 'deliver') };
    } finally {
      installed.dispose();
    }
  } finally {
    for (const handle of args) handle.dispose();
    installer.dispose();
  }
}

/** Returns the keys of the `tools` global as the sandbox itself sees them. */
export function readToolKeys(context: QuickJSContext): string[] {
  const handle = context.unwrapResult(
    context.evalCode('JSON.stringify(Object.keys(globalThis.tools))', 'probe.js', { type: 'global' }),
  );
  try {
    const keys: unknown = JSON.parse(context.getString(handle));
    if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string')) {
      throw new Error('the sandbox returned a malformed key list');
    }
    return keys;
  } finally {
    handle.dispose();
  }
}

/**
 * Frees the runtime and reports whether that worked. JS_FreeRuntime can assert after an
 * out-of-memory error or allocation-heavy promise jobs (upstream quickjs-emscripten
 * #257/#269); the instance is then never reused.
 */
export function disposeSandbox(sandbox: SandboxContext): boolean {
  try {
    sandbox.start.dispose();
    sandbox.deliver.dispose();
    sandbox.context.dispose();
    sandbox.runtime.dispose();
    return true;
  } catch {
    return false;
  }
}
