/**
 * Over stdio, stdout is the protocol: one stray line breaks the client. Plugin
 * workers' console output is piped into the host's process.stdout by Node, and
 * a plugin may well print, so while the guard is on, everything written to
 * process.stdout goes to stderr, and only the returned stream reaches fd 1.
 */
import { Writable } from 'node:stream';

/** The protocol's own stdout, and the way to put process.stdout back. */
export interface StdoutGuard {
  protocol: Writable;
  restore(): void;
}

/** Diverts process.stdout to stderr and returns a private stream to the real stdout. */
export function guardStdout(): StdoutGuard {
  const stdout = process.stdout;
  const original = stdout.write;
  const realWrite = original.bind(stdout) as (chunk: unknown, callback: (error?: Error | null) => void) => boolean;
  const protocol = new Writable({
    write(chunk, _encoding, callback) {
      realWrite(chunk, (error) => callback(error ?? null));
    },
  });
  stdout.write = ((...args: unknown[]) => (process.stderr.write as (...a: unknown[]) => boolean)(...args)) as typeof stdout.write;
  return {
    protocol,
    restore() {
      stdout.write = original;
    },
  };
}
