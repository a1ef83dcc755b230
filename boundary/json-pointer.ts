/** JSON Pointer (RFC 6901) segments: one place for the escaping every pointer toolshed reports uses. */

/**
 * A property name as one pointer segment: `~` as `~0`, `/` as `~1`.
 * @example escapePointer('a/b~c') // 'a~1b~0c'
 */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
