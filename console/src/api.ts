/**
 * The page's requests to the console API: relative to the page (so the same build works at `/`
 * and `/ui/`), with the bearer token when the page has one, and the `X-Toolshed-Console: 1` header
 * plus a JSON body on every state-changing request. A failed answer becomes an {@link ApiError}
 * with the envelope's code; a 401 also tells the page to ask for a token.
 */
import { readToken } from './token.js';
import type { ErrorBody } from '../../core/console/api-types.js';

/** A failed API answer: the HTTP status and the error envelope's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The URL of an API path (`overview`, `tools/read_file`, `events?payloads=1`). */
export function apiUrl(path: string): string {
  return new URL(`api/${path}`, `${location.origin}${location.pathname}`).href;
}

/** The headers every API request carries: the token, when the page has one. */
export function authHeaders(): Record<string, string> {
  const token = readToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

let onUnauthorized: () => void = () => {};

/** Sets what to do when the API answers 401 (the page shows its sign-in form). */
export function whenUnauthorized(callback: () => void): void {
  onUnauthorized = callback;
}

/** Reports a 401 answer (also for the event stream). */
export function unauthorized(): void {
  onUnauthorized();
}

/** The error an answer that is not OK stands for. */
async function errorOf(response: Response): Promise<ApiError> {
  if (response.status === 401) unauthorized();
  const body = (await response.json().catch(() => undefined)) as Partial<ErrorBody> | undefined;
  const error = body?.error;
  return new ApiError(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? response.statusText);
}

/** GETs an API path and returns its JSON. */
export async function get<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(apiUrl(path), {
    headers: { Accept: 'application/json', ...authHeaders() },
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

/** POSTs JSON to an API path (a state-changing request) and returns the JSON answer. */
export async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(apiUrl(path), {
    method: 'POST',
    headers: {
      Accept: 'application/json',
      'Content-Type': 'application/json',
      'X-Toolshed-Console': '1',
      ...authHeaders(),
    },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

/** The words for a failure, for a status line. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
