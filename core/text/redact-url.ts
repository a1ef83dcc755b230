/**
 * Secrets written into a URL, hidden before the URL is shown: the user info (`user:pass@`) and the
 * values of query parameters whose names say they hold a credential (`api_key`, `token`,
 * `access_token`, `key`, `secret`, `password`, `sig`, …). An MCP server's URL is shown by
 * `explain`, the console API, logs and error messages; the request itself still carries it whole.
 * One function for every place (docs/security.md#mcp-servers).
 */

/** What replaces a hidden part. */
export const REDACTED = '***';

/**
 * A query parameter name that holds a credential: after dropping `-`, `_` and `.` and lowercasing,
 * one ending in key, token, secret, password, pass, pwd, auth, sig, signature, credential(s) or
 * session, or named `code`. Hiding a harmless one costs a less readable line; showing a secret costs the secret.
 */
const SECRET_PARAM =
  /(key|token|secret|password|passwd|pass|pwd|auth|authorization|sig|signature|credentials?|session|sessionid)$|^code$/;

/** Whether the query parameter `name` holds a credential. */
export function isSecretParam(name: string): boolean {
  return SECRET_PARAM.test(name.replace(/[-_.]/g, '').toLowerCase());
}

/** `query` (without its `?`) with the values of secret parameters replaced; the rest byte for byte. */
function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at < 0) return pair;
      let name = pair.slice(0, at);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // a malformed escape: judged as written
      }
      return isSecretParam(name) && at < pair.length - 1 ? `${pair.slice(0, at)}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * A URL (or what was meant as one) with its secrets hidden: `https://***@host/mcp?api_key=***`.
 * Works on text that does not parse as a URL, too (a config's invalid `url`): the user info
 * before the host and the query are found by their delimiters.
 */
export function redactUrl(url: string | URL): string {
  const text = typeof url === 'string' ? url : url.href;
  // scheme://userinfo@ : the user info ends at the last '@' before the path, query or fragment.
  let out = text.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*@)/i, (_match, scheme: string) => `${scheme}${REDACTED}@`);
  const query = out.indexOf('?');
  if (query < 0) return out;
  const hash = out.indexOf('#', query);
  const end = hash < 0 ? out.length : hash;
  out = `${out.slice(0, query + 1)}${redactQuery(out.slice(query + 1, end))}${out.slice(end)}`;
  return out;
}

/**
 * `url` without the credentials it carries: no user info, no secret query parameters (removed, not
 * masked), no fragment. What a server's URL means as a resource identifier (RFC 8707) when it is
 * sent to a token endpoint: the server's key has no business there.
 */
export function withoutSecrets(url: URL): string {
  const clean = new URL(url.href);
  clean.username = '';
  clean.password = '';
  clean.hash = '';
  for (const name of [...clean.searchParams.keys()]) if (isSecretParam(name)) clean.searchParams.delete(name);
  return clean.href;
}

/** Every URL in free text (a log line, an error message) with its secrets hidden. */
export function redactUrlsIn(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi, (match) => {
    // Punctuation that ends a sentence or a bracket is the text's, not the URL's.
    const url = match.replace(/[).,;:!\]]+$/, '');
    return redactUrl(url) + match.slice(url.length);
  });
}
