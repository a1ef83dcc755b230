/**
 * The bearer token the page sends: kept in sessionStorage (never a cookie, gone with the tab),
 * taken once from a `#token=…` fragment, which is then removed from the address bar and history.
 */

const KEY = 'toolshed-console-token';

/** The token the page holds, if any. */
export function readToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

/** Keeps `token` for this tab (an empty one forgets it). */
export function storeToken(token: string): void {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
}

/** Takes a `#token=…` fragment into sessionStorage and removes it from the URL. */
export function takeTokenFromUrl(): void {
  const hash = new URLSearchParams(location.hash.slice(1));
  const token = hash.get('token');
  if (token === null) return;
  storeToken(token);
  hash.delete('token');
  const rest = hash.toString();
  history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
}
