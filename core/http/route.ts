/** Which part of a listener a path is for: the mount below its prefix, the endpoint at its path, or neither. */

/** Where a request goes. */
export type Route =
  | { kind: 'mount' /** below the prefix, without it */; path: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'endpoint' }
  | { kind: 'none' };

/**
 * The route of `pathname` on a listener whose mount (if any) is below `prefix` (both slashes) and whose endpoint is at
 * `endpoint`: the prefix without its last slash redirects to it.
 */
export function routeOf(pathname: string, prefix: string | undefined, endpoint: string): Route {
  if (prefix !== undefined && pathname.startsWith(prefix))
    return { kind: 'mount', path: pathname.slice(prefix.length) };
  if (prefix !== undefined && pathname === prefix.slice(0, -1)) return { kind: 'redirect', location: prefix };
  return pathname === endpoint ? { kind: 'endpoint' } : { kind: 'none' };
}
