/**
 * What `npm test` does first (scripts/test-prerequisites.mjs): finds the system programs the
 * suite needs and decides to do nothing, install them, or stop with one message. The decision
 * is a pure function of what is missing and what this user may do.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module script, without declarations
import { missingPrerequisites, plan, PREREQUISITES, searchPath } from '../../scripts/test-prerequisites.mjs';

type Need = { programs: string[]; package: string; why: string; service?: string };
const ALL = PREREQUISITES as Need[];
const only = (...names: string[]) => ALL.filter((need) => names.includes(need.package));

describe('the prerequisites', () => {
  it('lists the programs the suite starts, each with its Debian package', () => {
    expect(ALL.map((need) => need.package)).toEqual([
      'bubblewrap',
      'redis-server',
      'haproxy',
      'nginx',
      'chromium',
      'util-linux',
    ]);
  });

  it('finds a program in any folder searched, under any of its names', () => {
    const have = new Set([
      '/usr/sbin/haproxy',
      '/opt/bin/valkey-server',
      '/usr/bin/bwrap',
      '/usr/bin/nginx',
      '/usr/bin/chromium',
      '/usr/bin/prlimit',
    ]);
    expect(missingPrerequisites(['/usr/bin', '/usr/sbin', '/opt/bin'], (file: string) => have.has(file))).toEqual([]);
    const missing = missingPrerequisites(['/usr/bin'], (file: string) => have.has(file)) as Need[];
    expect(missing.map((need) => need.programs[0])).toEqual(['redis-server', 'haproxy']);
  });

  it('searches the sbin folders a non-root PATH lacks, unless told where to look', () => {
    expect(searchPath({ PATH: `/home/u/bin${path.delimiter}/usr/bin` })).toEqual([
      '/home/u/bin',
      '/usr/bin',
      '/usr/local/sbin',
      '/usr/sbin',
      '/sbin',
      '/usr/bin',
    ]);
    expect(searchPath({ PATH: '/usr/bin', TOOLSHED_PREREQUISITES_PATH: '/nowhere' })).toEqual(['/nowhere']);
  });
});

describe('what npm test does about them', () => {
  it('nothing when nothing is missing', () => {
    expect(plan([], { root: false, sudo: false, apt: true })).toEqual({ action: 'none' });
  });

  it('installs as root with apt-get, then stops the services Debian started', () => {
    const next = plan(only('bubblewrap', 'redis-server', 'nginx'), { root: true, sudo: false, apt: true });
    expect(next).toEqual({
      action: 'install',
      packages: ['bubblewrap', 'redis-server', 'nginx'],
      steps: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'bubblewrap', 'redis-server', 'nginx'],
      ],
      stop: [
        ['service', 'redis-server', 'stop'],
        ['service', 'nginx', 'stop'],
      ],
    });
  });

  it('installs through sudo without a password', () => {
    const next = plan(only('chromium'), { root: false, sudo: true, apt: true });
    expect(next.steps).toEqual([
      ['sudo', '-n', 'apt-get', 'update', '-qq'],
      ['sudo', '-n', 'apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium'],
    ]);
  });

  it('stops with one message naming each missing program and the one command, when this user cannot install', () => {
    const next = plan(only('bubblewrap', 'haproxy'), { root: false, sudo: false, apt: true });
    expect(next.action).toBe('stop');
    expect(next.message).toContain('  - bwrap, from the package bubblewrap:');
    expect(next.message).toContain('  - haproxy, from the package haproxy:');
    expect(next.message).toContain('Install them with:\n  sudo apt-get install -y bubblewrap haproxy\n');
  });

  it('names the packages when the machine has no apt-get, even for root', () => {
    const next = plan(only('nginx'), { root: true, sudo: false, apt: false });
    expect(next.action).toBe('stop');
    expect(next.message).toContain("install the Debian/Ubuntu packages nginx (or your system's equivalents)");
  });
});
