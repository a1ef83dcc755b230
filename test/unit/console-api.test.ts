/**
 * The console's request rules on the stage (core/console/): which API route a path names and
 * with which method, and what a request must carry before its handler runs.
 */
import { describe, expect, it } from 'vitest';
import { findRoute, methodAllowed } from '#internal/core/console/api.js';
import { decoded, refusal } from '#internal/core/console/request-checks.js';

describe('the API routes', () => {
  it('match whole paths, and prefixes before an id', () => {
    expect(findRoute('approvals')).toMatchObject({ route: { path: 'approvals', method: 'GET' }, id: '' });
    expect(findRoute('approvals/a%2Fb')).toMatchObject({ route: { path: 'approvals/', method: 'POST' }, id: 'a%2Fb' });
    expect(findRoute('tools/read_file')).toMatchObject({ route: { path: 'tools/', method: 'GET' }, id: 'read_file' });
    expect(findRoute('call')?.route.method).toBe('POST');
    expect(findRoute('overview/')).toBeUndefined();
    expect(findRoute('nothing')).toBeUndefined();
  });

  it('take HEAD as GET, and nothing else for another method', () => {
    expect(methodAllowed('HEAD', 'GET')).toBe(true);
    expect(methodAllowed('HEAD', 'POST')).toBe(false);
    expect(methodAllowed('GET', 'POST')).toBe(false);
  });

  it('refuse a malformed id', () => {
    expect(decoded('a%2Fb')).toBe('a/b');
    expect(() => decoded('%E0%A4%A')).toThrow(/malformed path segment/);
  });
});

describe('what a request must carry', () => {
  const own = new Set(['http://127.0.0.1:7420']);
  const none = new Set<string>();
  const post = { 'content-type': 'application/json', 'x-toolshed-console': '1' };

  it('passes its own origin, the Host it names, and an allowed one; refuses others', () => {
    expect(refusal({ method: 'GET', headers: { origin: 'http://127.0.0.1:7420' } }, own, none)).toBeUndefined();
    expect(
      refusal({ method: 'GET', headers: { origin: 'https://tools.example', host: 'tools.example' } }, own, none),
    ).toBeUndefined();
    expect(
      refusal({ method: 'GET', headers: { origin: 'https://app.example' } }, own, new Set(['https://app.example'])),
    ).toBeUndefined();
    expect(refusal({ method: 'GET', headers: { origin: 'https://evil.example' } }, own, none)).toMatch(
      /^Origin "https:\/\/evil.example" is not this console's/,
    );
  });

  it('asks a state change for a JSON content type and the console header', () => {
    expect(refusal({ method: 'POST', headers: post }, own, none)).toBeUndefined();
    expect(refusal({ method: 'POST', headers: { ...post, 'content-type': 'text/plain' } }, own, none)).toBe(
      'a state-changing request needs Content-Type: application/json',
    );
    expect(refusal({ method: 'POST', headers: { 'content-type': 'application/json' } }, own, none)).toBe(
      'a state-changing request needs the header X-Toolshed-Console: 1',
    );
  });
});
