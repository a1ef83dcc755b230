/**
 * Config trust's rules for what toolshed knows the model can write (core/config/config-trust.ts):
 * which folders are too broad to know, that a named config's record names no workspace, and that a
 * start on other roots judges the modules a record holds by that record. The starts themselves:
 * test/security/config-trust.test.ts and test/mcp/roots.test.ts.
 */
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import {
  currentState,
  decideTrust,
  knownWritableRoot,
  rememberWritableRoots,
  tooBroadToKnow,
} from '#internal/core/config/config-trust.js';
import { tempDir } from '../helpers.js';

describe('folders too broad to know as writable', () => {
  it('are the filesystem root, the home and the folders holding it', () => {
    expect(tooBroadToKnow('/', '/home/ana')).toBe(true);
    expect(tooBroadToKnow('/home', '/home/ana')).toBe(true);
    expect(tooBroadToKnow('/home/ana', '/home/ana')).toBe(true);
  });

  it('are not a workspace, a folder below the home, or one beside it', () => {
    expect(tooBroadToKnow('/home/ana/projects/app', '/home/ana')).toBe(false);
    expect(tooBroadToKnow('/home/anabel', '/home/ana')).toBe(false);
    expect(tooBroadToKnow('/srv/app', '/home/ana')).toBe(false);
  });
});

describe('the folders toolshed knows the model can write', () => {
  let state: { dir: string; cleanup(): void };
  beforeEach(() => (state = tempDir('toolshed-known-roots-')));
  afterEach(() => state.cleanup());

  it('leave out a start whose root was / or the home (an MCP client starts servers in /)', () => {
    rememberWritableRoots(state.dir, ['/', os.homedir(), '/srv/app']);
    expect(knownWritableRoot(state.dir, '/srv/app/sub/.toolshedrc.mjs')).toBe('/srv/app');
    expect(knownWritableRoot(state.dir, '/srv/other/.toolshedrc.mjs')).toBeUndefined();
    expect(knownWritableRoot(state.dir, path.join(os.homedir(), 'project', '.toolshedrc.mjs'))).toBeUndefined();
  });

  it("count a search folder's record as a workspace, not a named config's record", () => {
    const named = '/srv/app/toolshed.config.mjs';
    const state0 = { file: named, hash: 'h', modules: {}, text: '' };
    decideTrust({ key: named, named: true, mode: 'accept', stateDir: state.dir, cwd: '/' }, undefined, state0, [
      '/srv/app',
    ]);
    expect(knownWritableRoot(state.dir, named)).toBeUndefined();
    decideTrust(
      { key: '/srv/app', named: false, mode: 'accept', stateDir: state.dir, cwd: '/' },
      undefined,
      { ...state0, file: null, hash: null },
      ['/srv/app'],
    );
    expect(knownWritableRoot(state.dir, named)).toBe('/srv/app');
  });
});

describe('a start on other roots than the record was made under', () => {
  // Accepted when the root was /: the config and the local plugin it loads.
  const config = '/srv/app/toolshed.config.json';
  const plugin = '/srv/plugins/where';
  const loaded = { file: undefined, config: {}, sources: new Map<string, string>() };
  const resolved = { dir: '/srv/app', hooks: [path.join(plugin, 'hooks.mjs')], plugins: [{ package: plugin }] };

  it('still fingerprints a module the record holds, outside the new roots, and nothing below it the record does not', () => {
    expect(currentState(loaded, resolved, ['/srv/client'], () => '').modules).toEqual({});
    expect(Object.keys(currentState(loaded, resolved, ['/srv/client'], () => '', [plugin]).modules)).toEqual([plugin]);
  });

  it('compares it with the record, and names the folder that holds the config to trust', () => {
    const state = tempDir('toolshed-known-roots-');
    onTestFinished(() => state.cleanup());
    const context = { key: '/srv', named: false, mode: 'check' as const, stateDir: state.dir, cwd: '/' };
    const record = {
      version: 1 as const,
      key: '/srv',
      acceptedAt: '',
      file: config,
      hash: 'h',
      modules: { [plugin]: 'p' },
      text: '',
    };
    const now = (hash: string) => ({ file: config, hash: 'h', modules: { [plugin]: hash }, text: '' });
    expect(decideTrust(context, record, now('p'), ['/srv/app'])).toMatchObject({ applies: true, changes: [] });
    expect(() => decideTrust(context, record, now('q'), ['/srv/app'])).toThrow(
      "./srv/plugins/where (code the config runs) changed; ./srv/app/toolshed.config.json lies inside /srv/app, which the model's tools can write",
    );
  });
});
