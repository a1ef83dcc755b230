/**
 * Why an MCP server's connection failed, in words: a handshake that did not complete, and a
 * probe of a connected HTTP server that got no answer. Each says which state the connection
 * goes to, or that it waits for a login.
 */
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { ConnectionState } from '../runners/connection-report.js';
import { exitText, type Attempt } from './attempt.js';
import type { ResolvedServer } from './config.js';
import { ListingTimeout } from './listing.js';
import { needsAuthorization } from './oauth-client.js';
import { sessionEnded, transportFailure } from './probe.js';

/** An error in words; a JSON-RPC error from the server keeps its code, as operators have read it so far. */
export function errorText(error: unknown): string {
  if (error instanceof ProtocolError) return `MCP error ${error.code}: ${error.message}`;
  return (error as Error)?.message ?? String(error);
}

/**
 * How a failed connection ends: waiting for a login (the reason names `toolshed auth NAME`), or in a state, and
 * why.
 */
export type ConnectionFailure = { authorization: string } | { state: ConnectionState; why: string };

/** Why `attempt`'s handshake (or its first listing) failed with `error`. */
export function handshakeFailure(attempt: Attempt, error: unknown, server: ResolvedServer): ConnectionFailure {
  const authorization = needsAuthorization(error);
  if (authorization) return { authorization: authorization.reason };
  if (error instanceof ListingTimeout && !attempt.exit) return { state: 'timed out', why: error.message };
  if (attempt.stopped) return { state: 'exited', why: `${attempt.ending()} during the handshake` };
  if (attempt.exit && !attempt.closedFirst)
    return { state: 'exited', why: `${exitText(attempt.exit)} during the handshake${attempt.recent.lastLine()}` };
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    return {
      state: 'timed out',
      why: `did not answer the handshake within ${server.startTimeoutMs} ms (limits.loadTimeoutMs)`,
    };
  if (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed)
    return {
      state: 'handshake failed',
      why: `could not agree on an MCP revision (protocol: ${server.protocol}): ${error.message}`,
    };
  const network = transportFailure(error);
  if (network) return { state: 'unreachable', why: `is unreachable: ${network}` };
  const message = errorText(error);
  const code = (error as { code?: unknown })?.code;
  if (code === 'ENOENT' || code === 'EACCES')
    return { state: 'handshake failed', why: `could not be started: ${message}` };
  return { state: 'handshake failed', why: `failed its handshake: ${message}${attempt.recent.lastLine()}` };
}

/** Why a probe got no answer, and whether a new session is initialized at once. */
export type ProbeFailure = { text: string; reinitialize: boolean; authorization?: boolean };

/**
 * What a probe's error says: undefined when the server answered, even with an error; `timeoutMs` is the probe's
 * deadline (limits.loadTimeoutMs).
 */
export function probeFailure(error: unknown, timeoutMs: number): ProbeFailure | undefined {
  const authorization = needsAuthorization(error);
  if (authorization) return { text: authorization.reason, reinitialize: false, authorization: true };
  if (sessionEnded(error)) return { text: 'ended its session', reinitialize: true };
  const failure = transportFailure(error);
  if (failure) return { text: `is unreachable: ${failure}`, reinitialize: false };
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return {
      text: `is unreachable: it did not answer a probe within ${timeoutMs} ms (limits.loadTimeoutMs)`,
      reinitialize: false,
    };
  }
  return undefined;
}
