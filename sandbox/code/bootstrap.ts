/**
 * Source evaluated inside every fresh QuickJS context before the script. It evaluates to
 * `install(hostCall, hostPrint, hostDone, namesJson, searchName)`, which defines `tools` (a proxy over a
 * frozen object of non-configurable functions) and `console`, and returns a frozen
 * `{ start, deliver }`: `start(main)` runs the compiled script and reports how it settled
 * through `hostDone(ok, json)`; `deliver(ticket, ok, text)` settles a tool call.
 *
 * A tool call asks `hostCall(name, argsJson)`, which answers at once: a number (the call's
 * ticket: it was sent, and its reply comes later through `deliver`) or the JSON text of why it
 * was refused. The promise the script awaits is made here, and only `deliver` (which the
 * script never sees) settles it: the result's own text when `ok`, else a failure's JSON.
 *
 * Everything crossing the boundary is a string or a number: tool arguments leave as JSON text
 * made here, tool results and errors arrive as JSON text and are parsed here, so every value the
 * script sees is built by QuickJS's own intrinsics and no host object is ever reachable. The
 * intrinsics are captured now because the script runs afterwards and may overwrite globals.
 */
export const BOOTSTRAP_SOURCE = String.raw`(function install(hostCall, hostPrint, hostDone, namesJson, searchName) {
  'use strict';
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const ErrorCtor = Error;
  const ProxyCtor = Proxy;
  const createObject = Object.create;
  const PromiseCtor = Promise;
  const isArray = Array.isArray;
  const reflectGet = Reflect.get;
  const toText = String;
  const global = globalThis;

  function show(value) {
    if (typeof value === 'string') return value;
    try {
      if (value instanceof ErrorCtor) {
        const code = value.code;
        const suffix = code === undefined ? '' : ' [code: ' + toText(code) + ']';
        return toText(value.name) + ': ' + toText(value.message) + suffix;
      }
      const json = stringify(value);
      return json === undefined ? toText(value) : json;
    } catch (error) {
      try { return toText(value); } catch (again) { return '[unprintable value]'; }
    }
  }

  function toolError(reply) {
    const error = new ErrorCtor(toText(reply.message));
    defineProperty(error, 'code', { value: toText(reply.code), writable: true, enumerable: true, configurable: true });
    return error;
  }

  // The settlers of calls sent and not answered yet, by ticket: only deliver() reaches them.
  const waiting = createObject(null);

  function deliver(ticket, ok, text) {
    const settle = waiting[ticket];
    if (settle === undefined) return;
    delete waiting[ticket];
    if (ok === true) settle.resolve(text);
    else settle.reject(text);
  }

  // Sends a tool call and returns the promise of its result text (rejected with a failure's
  // JSON); a refused call throws its error at once.
  function send(name, payload) {
    const ticket = hostCall(name, payload === undefined ? 'null' : payload);
    if (typeof ticket !== 'number') throw toolError(parse(ticket));
    return new PromiseCtor(function (resolve, reject) { waiting[ticket] = { resolve: resolve, reject: reject }; });
  }

  function makeTool(name) {
    const tool = async function (args) {
      const reply = send(name, stringify(args === undefined ? {} : args));
      let text;
      try { text = await reply; } catch (failure) { throw toolError(parse(failure)); }
      try { return parse(text); } catch (notJson) { return text; }
    };
    defineProperty(tool, 'name', { value: name });
    return freeze(tool);
  }

  const names = parse(namesJson);
  const available = names.length === 0 ? 'none' : names.join(', ');
  const functions = {};
  for (let i = 0; i < names.length; i++) {
    defineProperty(functions, names[i], {
      value: makeTool(names[i]), enumerable: true, writable: false, configurable: false,
    });
  }

  // tools.search(query, limit): the host's search tool, through the same call path as any tool.
  // Each hit says whether this sandbox can call it (callable), as tools[name](args).
  function makeSearch() {
    const callable = createObject(null);
    for (let i = 0; i < names.length; i++) callable[names[i]] = true;
    const search = async function (query, limit) {
      const request = limit === undefined ? { query: query } : { query: query, limit: limit };
      const reply = send(searchName, stringify(request));
      let text;
      try { text = await reply; } catch (failure) { throw toolError(parse(failure)); }
      const result = parse(text);
      const hits = result !== null && typeof result === 'object' && isArray(result.tools) ? result.tools : [];
      for (let i = 0; i < hits.length; i++) {
        const hit = hits[i];
        if (hit !== null && typeof hit === 'object') {
          defineProperty(hit, 'callable', {
            value: callable[hit.name] === true, writable: true, enumerable: true, configurable: true,
          });
        }
      }
      return result;
    };
    defineProperty(search, 'name', { value: 'search' });
    return freeze(search);
  }
  if (searchName !== '') {
    defineProperty(functions, 'search', {
      value: makeSearch(), enumerable: true, writable: false, configurable: false,
    });
  }
  freeze(functions);

  // A name the sandbox was not given resolves to a function that rejects with UNKNOWN_TOOL, so a
  // call to a disabled or misspelt tool says which one instead of QuickJS's bare "not a function".
  // 'then' and 'toJSON' stay undefined so awaiting or serialising the object behaves normally.
  function missing(name) {
    return freeze(async function () {
      const message = 'No tool named "' + name + '" is available in this sandbox (available: ' + available + ').';
      throw toolError({ code: 'UNKNOWN_TOOL', message: message });
    });
  }
  const handler = freeze({
    get(target, key) {
      if (key in target || typeof key !== 'string' || key === 'then' || key === 'toJSON') {
        return reflectGet(target, key);
      }
      return missing(key);
    },
  });
  const tools = new ProxyCtor(functions, handler);
  defineProperty(global, 'tools', { value: tools, enumerable: false, writable: false, configurable: false });

  function makePrinter(level) {
    return function () {
      let line = '';
      for (let i = 0; i < arguments.length; i++) line += (i === 0 ? '' : ' ') + show(arguments[i]);
      hostPrint(level, line);
    };
  }
  const console = {
    log: makePrinter('log'), info: makePrinter('info'), debug: makePrinter('debug'),
    warn: makePrinter('warn'), error: makePrinter('error'),
  };
  defineProperty(global, 'console', { value: console, enumerable: false, writable: true, configurable: true });

  function describe(error) {
    try {
      if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
        const name = error.name, message = error.message, code = error.code, stack = error.stack;
        return stringify({
          name: typeof name === 'string' ? name : 'Error',
          message: typeof message === 'string' ? message : show(error),
          code: typeof code === 'string' ? code : undefined,
          stack: typeof stack === 'string' && stack !== '' ? stack : undefined,
        });
      }
      // QuickJS throws null when it cannot even allocate its out-of-memory error.
      return stringify({ name: 'Error', message: 'Uncaught ' + show(error), thrownNull: error === null });
    } catch (failure) {
      return '{"name":"Error","message":"The script threw a value that could not be described"}';
    }
  }

  function encode(value) {
    try {
      const json = stringify(value);
      return json === undefined ? 'null' : json;
    } catch (notJson) {
      try { return stringify(show(value)); } catch (failure) { return 'null'; }
    }
  }

  async function start(main) {
    let value;
    try {
      value = await main();
    } catch (error) {
      hostDone(false, describe(error));
      return;
    }
    hostDone(true, encode(value));
  }
  return freeze({ start: start, deliver: deliver });
})`;

/** Filename QuickJS reports in stack traces for the submitted code. */
export const SCRIPT_FILENAME = 'script.js';

/**
 * Wraps the submitted code as the body of an async function, on the same first line so stack
 * traces point at the line numbers the model wrote; top-level `await` and `return` then work.
 */
export function wrapScript(code: string): string {
  return `(async function () {${code}\n})`;
}
