/**
 * The fetch of OAuth requests for a remote MCP server: its protected resource metadata, its
 * authorization server's metadata, registration and token endpoints. They leave the pinned MCP
 * URL (pinned-fetch.ts) because the MCP authorization flow sends them elsewhere; what names them
 * is the operator's config (the server's URL) and, through it, the metadata of the server the
 * operator chose, never anything the model writes. Still: every request goes over https (or to
 * loopback, for a local server), redirects are never followed, and none carries the entry's static
 * headers (they are the MCP server's, not its authorization server's). What the tokens are bound
 * to is the SDK's part: stored tokens and clients carry the issuer they came from and read back as
 * absent for another one, so a server that later names another authorization server gets no token
 * of the first sent there.
 */
import type { FetchLike } from '@modelcontextprotocol/client';

/** Whether `url` is on this machine: plain http is fine there. */
function loopback(url: URL): boolean {
  return url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost';
}

/** A fetch for OAuth requests: https or loopback only, no redirects. */
export function oauthFetch(): FetchLike {
  return async (input, init) => {
    const target = new URL(String(input));
    if (target.protocol !== 'https:' && !(target.protocol === 'http:' && loopback(target)))
      throw new Error(`toolshed sends OAuth requests only over https (or to loopback), not to ${target.href}`);
    const response = await fetch(target, { ...init, redirect: 'manual' });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new Error(
        `${target.href} answered ${response.status} (a redirect to ` +
          `${response.headers.get('location') ?? 'somewhere else'}); toolshed follows no redirect in an OAuth ` +
          `flow`,
      );
    }
    return response;
  };
}
