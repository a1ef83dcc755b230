/**
 * Over stdio, stdout is the protocol: one stray line breaks the client. Plugin
 * workers' console output is piped into the host's process.stdout by Node, and
 * a plugin may well print, so while the guard is on, everything written to
 * process.stdout goes to stderr, and only the returned writer reaches fd 1.
 */

/**
 * The protocol's own way to fd 1: what the SDK's stdio transport uses of a
 * stream (it writes each message once and waits for 'drain' when told to),
 * straight onto the real stdout, with no stream layer or Buffer copy between.
 */
interface ProtocolOut {
  write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/** The protocol's own stdout, and the way to put process.stdout back. */
interface StdoutGuard {
  protocol: ProtocolOut;
  restore(): void;
}

/** Diverts process.stdout to stderr and returns a private writer to the real stdout. */
export function guardStdout(): StdoutGuard {
  const stdout = process.stdout;
  const original = stdout.write;
  const realWrite = original.bind(stdout) as (
    chunk: string | Uint8Array,
    callback?: (error?: Error | null) => void,
  ) => boolean;
  const protocol: ProtocolOut = {
    write: (chunk, callback) => realWrite(chunk, callback),
    once: (_event, listener) => stdout.once('drain', listener),
  };
  stdout.write = ((...args: unknown[]) =>
    (process.stderr.write as (...a: unknown[]) => boolean)(...args)) as typeof stdout.write;
  return {
    protocol,
    restore() {
      stdout.write = original;
    },
  };
}
