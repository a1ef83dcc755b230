/**
 * What a listener's users see of the front door (front-door.ts): the handler mounted below a
 * path of it, and a line of its request log. Types only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '../../boundary/identity.js';

/**
 * A handler served below `prefix` on serve's listener, behind its Origin and Host checks; what
 * `isPublic` says of a path is served without authentication, everything else after it (with the
 * caller under `serve.auth`, refused like an MCP request when no access rule matches).
 */
export interface HttpMount {
  /** the path it is served below, with both slashes (`/ui/`) */
  prefix: string;
  /** whether a path below the prefix needs no token (the page's files) */
  isPublic(path: string): boolean;
  /** answers a request; `path` is below the prefix, `origins` the listener's own */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    request: { path: string; caller?: Identity; origins: ReadonlySet<string> },
  ): Promise<void>;
  /** answers a refusal of the listener's (401, 403…) in the mount's own shape */
  refuse(res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void;
}

/** One answered request, as the request log prints it. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
  /** the JSON-RPC method(s) of a POST body */
  rpc?: string;
  /** the tool a tools/call names */
  tool?: string;
  /** the MCP session it belongs to (or opened) */
  session?: string;
  /** who sent it (`clientOf`) */
  client: string;
}
