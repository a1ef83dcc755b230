/** The SDK's answers (auth challenges, metadata documents), which are fetch Responses, written out. */
import type { ServerResponse } from 'node:http';

/** Writes a fetch `Response` (the SDK's auth challenges and metadata documents) to `res`. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

/** Why a challenge the SDK built refuses a token: its OAuth error description, else the error. */
export async function challengeReason(response: Response): Promise<string> {
  const body = (await response
    .clone()
    .json()
    .catch(() => ({}))) as { error?: unknown; error_description?: unknown };
  return String(body.error_description ?? body.error ?? `HTTP ${response.status}`);
}
