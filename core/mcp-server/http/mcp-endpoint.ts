/**
 * MCP at its path (`/mcp`) behind the front door: a request that names a session is its session's (unless
 * the endpoint is stateless), an `initialize` of the 2025 era opens a session, and everything
 * else is served by a server of its own (per-request.ts). A POST's body is read here, under the
 * size limit, so the request log can name its JSON-RPC method and tool.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { toWebRequest } from '@modelcontextprotocol/node';
import { BodyTooLarge, lingerAfterRefusal, readJson } from '../../http/body.js';
import type { DoorEndpoint, FrontDoor } from '../../http/front-door.js';
import { NO_BODY, type HttpSessions } from './http-sessions.js';
import type { PerRequestServers } from './per-request.js';
import { INVALID_REQUEST, MAX_BODY_BYTES, PARSE_ERROR, reply, rpcNote, SERVER_ERROR } from './http-replies.js';
import type { Identity } from '../../../boundary/identity.js';

/** The MCP endpoint of one listener. */
export class McpHttpEndpoint implements DoorEndpoint {
  constructor(
    private readonly door: FrontDoor,
    private readonly sessions: HttpSessions,
    private readonly perRequest: PerRequestServers,
    /** keep no per-client state: a server per request, for both eras */
    private readonly stateless: boolean,
    /** the path MCP is served at */
    private readonly path: string,
  ) {}

  notFound(res: ServerResponse): void {
    reply(res, 404, `Not found: MCP is served at ${this.path}`);
  }

  async handle(req: IncomingMessage, res: ServerResponse, caller: Identity | undefined): Promise<void> {
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string' && !this.stateless)
      return this.sessions.serve(req, res, id, caller, () => this.readBody(req, res));
    if (req.method !== 'POST') {
      if (this.stateless) return reply(res, 405, 'Method not allowed.', SERVER_ERROR, { allow: 'POST' });
      return reply(res, 400, 'Bad Request: no valid session id', INVALID_REQUEST);
    }
    const body = await this.readBody(req, res);
    if (body === NO_BODY) return;
    if (this.stateless) return this.perRequest.serveStateless(req, res, body, caller);
    if (!(await isLegacyRequest(await toWebRequest(req, body), body)))
      return this.perRequest.serveModern(req, res, body);
    return this.sessions.open(req, res, body, caller);
  }

  /**
   * The JSON body of a POST, noted for the request log; NO_BODY once a parse error or a body too large was answered.
   */
  private async readBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    let body: unknown;
    try {
      body = await readJson(req, MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        lingerAfterRefusal(req);
        reply(res, 413, error.message, INVALID_REQUEST);
      } else reply(res, 400, `Parse error: ${(error as Error).message}`, PARSE_ERROR);
      return NO_BODY;
    }
    this.door.log.note(req, rpcNote(body));
    return body;
  }
}
