/**
 * The pure parts of what keeps credentials where the operator put them: `redactUrl` (secrets in an
 * MCP server's URL hidden wherever it is shown) and `notMintedFor` (an exchanged token is sent to a
 * server only when it was minted for that server, never the caller's own).
 */
import { describe, expect, it } from 'vitest';
import { isSecretParam, redactUrl, redactUrlsIn, withoutSecrets } from '#internal/core/text/redact-url.js';
import { notMintedFor } from '#internal/core/mcp-client/per-identity.js';

describe('redactUrl', () => {
  it('hides the user info', () => {
    expect(redactUrl('https://alice:hunter2@mcp.example.com/mcp')).toBe('https://***@mcp.example.com/mcp');
    expect(redactUrl('https://token@mcp.example.com/mcp')).toBe('https://***@mcp.example.com/mcp');
    expect(redactUrl(new URL('http://u:p%40ss@127.0.0.1:9/mcp'))).toBe('http://***@127.0.0.1:9/mcp');
  });

  it('hides the values of credential query parameters and keeps the rest', () => {
    expect(redactUrl('https://mcp.example.com/mcp?api_key=abc123&region=eu')).toBe(
      'https://mcp.example.com/mcp?api_key=***&region=eu',
    );
    expect(
      redactUrl(
        'https://h/mcp?token=t&key=k&secret=s&access_token=a&apiKey=b&X-Api-Key=c&client_secret=d&password=e&sig=f&page=2',
      ),
    ).toBe(
      'https://h/mcp?token=***&key=***&secret=***&access_token=***&apiKey=***&X-Api-Key=***&client_secret=***&password=***&sig=***&page=2',
    );
    expect(redactUrl('https://h/mcp?q=1#api_key=x')).toBe('https://h/mcp?q=1#api_key=x');
    expect(redactUrl('https://h/mcp?api%5Fkey=x')).toBe('https://h/mcp?api%5Fkey=***');
    expect(redactUrl('https://h/mcp?token=')).toBe('https://h/mcp?token=');
  });

  it('leaves a URL without secrets as it is', () => {
    for (const url of ['https://mcp.example.com/mcp', 'http://127.0.0.1:3333/mcp?session=', 'https://h/a/b?x=1&y=2'])
      expect(redactUrl(url)).toBe(url);
  });

  it('works on text that is not a valid URL', () => {
    expect(redactUrl('https://user:pa ss@exa mple/mcp?token=abc')).toBe('https://***@exa mple/mcp?token=***');
  });

  it('finds URLs in free text', () => {
    expect(redactUrlsIn("the MCP server x (https://u:p@h/mcp?api_key=k) is unreachable: 'http://h2/?token=t'")).toBe(
      "the MCP server x (https://***@h/mcp?api_key=***) is unreachable: 'http://h2/?token=***'",
    );
    expect(redactUrlsIn('no url here, api_key=k')).toBe('no url here, api_key=k');
  });

  it('names credential parameters by their endings', () => {
    for (const name of [
      'key',
      'api_key',
      'apikey',
      'API-KEY',
      'token',
      'access_token',
      'refresh-token',
      'secret',
      'client_secret',
      'password',
      'pwd',
      'auth',
      'signature',
      'X-Amz-Signature',
      'credential',
      'code',
    ])
      expect(isSecretParam(name)).toBe(true);
    for (const name of ['region', 'page', 'q', 'format', 'version', 'tenant']) expect(isSecretParam(name)).toBe(false);
  });
});

describe('withoutSecrets', () => {
  it('drops user info, secret parameters and the fragment, and keeps the rest', () => {
    expect(withoutSecrets(new URL('https://u:p@mcp.example.com/mcp?api_key=k&region=eu#x'))).toBe(
      'https://mcp.example.com/mcp?region=eu',
    );
    expect(withoutSecrets(new URL('https://mcp.example.com/mcp'))).toBe('https://mcp.example.com/mcp');
  });
});

describe('notMintedFor', () => {
  const jwt = (payload: Record<string, unknown>) =>
    `eyJhbGciOiJub25lIn0.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
  const server = 'https://mcp.example.com/mcp';

  it("refuses the caller's own token handed back", () => {
    expect(notMintedFor('same', 'same', [server])).toMatch(/caller's own token/);
  });

  it('refuses a JWT for another audience, takes one for the server', () => {
    expect(notMintedFor(jwt({ aud: 'https://toolshed.example.com/mcp' }), 'inbound', [server])).toMatch(
      /another audience/,
    );
    expect(notMintedFor(jwt({ aud: ['other', server] }), 'inbound', [server])).toBeUndefined();
    expect(notMintedFor(jwt({ aud: 'api://custom' }), 'inbound', ['api://custom', server])).toBeUndefined();
  });

  it('leaves an opaque token, or a JWT without aud, to the server', () => {
    expect(notMintedFor('opaque-token', 'inbound', [server])).toBeUndefined();
    expect(notMintedFor(jwt({ sub: 'alice' }), 'inbound', [server])).toBeUndefined();
  });
});
