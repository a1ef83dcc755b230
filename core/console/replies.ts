/**
 * How the console answers: the security headers every response carries (a
 * strict CSP, nosniff, no referrer; never a cookie, never a CORS header), JSON
 * answers that are never cached, and errors as `{ error: { code, message } }`
 * with the HTTP status that goes with the code (docs/console.md#api).
 */
import type { ServerResponse } from 'node:http';
import type { ErrorBody } from './api-types.js';

/** The page may load only its own scripts, styles, images and fonts, and talk only to its own origin. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src " +
  "'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The console's error codes and their HTTP statuses; a call's or the host's own codes ride in a 200 or a 500. */
const STATUS: Record<string, number> = {
  USAGE: 400,
  AUTH_FAILED: 401,
  ACCESS_DENIED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  BODY_TOO_LARGE: 413,
};

/** Sets the headers every console response carries. */
export function secure(res: ServerResponse): void {
  res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
}

/** Answers `body` as JSON with `status`, uncached. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  secure(res);
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'content-length': Buffer.byteLength(text),
      ...headers,
    })
    .end(text);
}

/** Answers the error `code` with `message`, with the status its code goes with (500 for a host error). */
export function sendError(
  res: ServerResponse,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, STATUS[code] ?? 500, { error: { code, message } } satisfies ErrorBody, headers);
}

/**
 * Answers a listener's refusal in the console's error shape: 401, 403, 404, 429, and the 5xx of an authentication that
 * cannot check tokens yet (AUTH_FAILED).
 */
export function sendRefusal(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const code =
    status === 401
      ? 'AUTH_FAILED'
      : status === 403
        ? 'ACCESS_DENIED'
        : status === 404
          ? 'NOT_FOUND'
          : status === 429
            ? 'QUOTA_EXCEEDED'
            : 'AUTH_FAILED';
  sendJson(res, status, { error: { code, message } } satisfies ErrorBody, headers);
}
