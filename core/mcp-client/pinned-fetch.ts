/**
 * The fetch an HTTP MCP server's transport uses: it requests the configured
 * URL and nothing else. Redirects are never followed (the SDK would follow
 * one within the origin), so a server cannot send toolshed, its headers and
 * their credentials anywhere but where the operator pointed it.
 */
import type { FetchLike } from '@modelcontextprotocol/client';

/** A fetch that refuses every URL but `url` and every redirect. */
export function pinnedFetch(url: URL): FetchLike {
  const allowed = url.href;
  return async (input, init) => {
    const target = new URL(String(input));
    if (target.href !== allowed)
      throw new Error(`toolshed requests only the configured URL ${allowed}, not ${target.href}`);
    const response = await fetch(target, { ...init, redirect: 'manual' });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new Error(
        `the server answered ${response.status} (a redirect to ` +
          `${response.headers.get('location') ?? 'somewhere else'}); toolshed requests only the configured URL ` +
          `${allowed}`,
      );
    }
    return response;
  };
}
