/**
 * `mcpServers.NAME.credentials` as the host resolves it: per-caller credentials need a URL entry
 * (a stdio server has no Authorization to carry them), an exchange's client secret needs its
 * client id, and an exchange's audience defaults to the server's URL.
 */
import { describe, expect, it } from 'vitest';
import { createToolHost } from 'toolshed';
import { resolveServers } from '#internal/core/mcp-client/config.js';
import { PROJECT } from '../mcp-servers/setup.js';

const configError = (mcpServers: Record<string, unknown>) =>
  createToolHost({ cwd: PROJECT, env: {}, config: { builtins: false, mcpServers } as never }).then(
    async (host) => {
      await host.close();
      return undefined;
    },
    (error: { code?: string; message?: string; data?: { pointer?: string } }) => error,
  );

describe('mcpServers.NAME.credentials', () => {
  it('refuses per-caller credentials on a stdio entry', async () => {
    const error = await configError({ local: { command: 'node', args: ['server.js'], credentials: 'provider' } });
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', data: { pointer: '/mcpServers/local/credentials' } });
    expect(error?.message).toMatch(/credentials per caller need a url entry/);
  });

  it("refuses an exchange's client secret without its client id", async () => {
    const error = await configError({
      remote: { url: 'http://127.0.0.1:9/mcp', credentials: { exchange: { clientSecretEnv: 'SECRET' } } },
    });
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      data: { pointer: '/mcpServers/remote/credentials/exchange/clientId' },
    });
  });

  it("defaults an exchange's audience to the server's URL, and keeps the rest as given", () => {
    const mcpServers = {
      remote: {
        url: 'http://127.0.0.1:9/mcp',
        credentials: { exchange: { tokenEndpoint: 'http://127.0.0.1:8/token', clientId: 'toolshed', scopes: ['a'] } },
      },
      plain: { url: 'http://127.0.0.1:9/mcp' },
    };
    const [remote, plain] = resolveServers({
      dir: PROJECT,
      enable: ['all'],
      disable: [],
      toolsets: {},
      limits: { timeoutMs: 1000, loadTimeoutMs: 1000 },
      mcpServers,
    } as never);
    expect(remote!.credentials).toEqual({
      exchange: {
        endpoint: { tokenEndpoint: new URL('http://127.0.0.1:8/token') },
        audience: 'http://127.0.0.1:9/mcp',
        scopes: ['a'],
        clientId: 'toolshed',
      },
    });
    expect(plain!.credentials).toBe('operator');
  });

  it("takes an exchange's token endpoint from the config or the operator's issuer, never from the server", () => {
    const config = (mcpServers: Record<string, unknown>, serve?: unknown) =>
      ({
        dir: PROJECT,
        enable: ['all'],
        disable: [],
        toolsets: {},
        limits: { timeoutMs: 1000, loadTimeoutMs: 1000 },
        mcpServers,
        ...(serve ? { serve } : {}),
      }) as never;
    const [derived] = resolveServers(
      config(
        { remote: { url: 'https://mcp.example.com/mcp', credentials: { exchange: {} } } },
        { auth: { issuer: 'https://login.example.com' } },
      ),
    );
    expect(derived!.credentials).toEqual({
      exchange: {
        endpoint: { issuer: 'https://login.example.com' },
        audience: 'https://mcp.example.com/mcp',
        scopes: [],
      },
    });
    expect(() =>
      resolveServers(config({ remote: { url: 'https://mcp.example.com/mcp', credentials: { exchange: {} } } })),
    ).toThrow(/credentials\.exchange needs a tokenEndpoint/);
  });

  it("refuses an exchange's token endpoint over plain http to another machine", async () => {
    const error = await configError({
      remote: {
        url: 'https://mcp.example.com/mcp',
        credentials: { exchange: { tokenEndpoint: 'http://login.example.com/token' } },
      },
    });
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      data: { pointer: '/mcpServers/remote/credentials/exchange/tokenEndpoint' },
    });
    expect(error?.message).toMatch(/must be https/);
  });
});
