// The system programs the test suite needs beyond npm, in one place: `npm test` runs this
// first. Where one is missing and this user may install packages (root, or sudo without a
// password, on a machine with apt-get), it installs them with Debian's packages; otherwise it
// stops before any test with one message naming each missing program and the one command
// that installs them. Never a silent skip: a test that needs one of these fails loudly.
//
//   node scripts/test-prerequisites.mjs           check, and install what is missing
//   node scripts/test-prerequisites.mjs --check   check only: exit 1 with the message
//
// TOOLSHED_PREREQUISITES_PATH replaces the folders searched (PATH plus the sbin folders),
// so the suite can test the "missing" path on a machine that has everything.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What the suite needs, by program: the Debian package that ships it, why, and whether
 * Debian starts it as a service on install (the tests start their own, on free ports).
 */
export const PREREQUISITES = [
  {
    programs: ['bwrap'],
    package: 'bubblewrap',
    why: "the process tier's mount namespace (test/security, test/mcp-servers)",
  },
  {
    programs: ['redis-server', 'valkey-server'],
    package: 'redis-server',
    why: "the fleet's state store (test/fleet)",
    service: 'redis-server',
  },
  {
    programs: ['haproxy'],
    package: 'haproxy',
    why: 'the shipped load-balancer configuration (test/fleet)',
    service: 'haproxy',
  },
  {
    programs: ['nginx'],
    package: 'nginx',
    why: 'the shipped load-balancer configuration (test/fleet)',
    service: 'nginx',
  },
  { programs: ['chromium'], package: 'chromium', why: "the console's browser tests (test/console)" },
  { programs: ['prlimit'], package: 'util-linux', why: 'the resource-limit tests (test/security)' },
];

/** The folders searched: PATH, then the sbin and bin folders a non-root PATH often lacks. */
export function searchPath(env = process.env) {
  if (env.TOOLSHED_PREREQUISITES_PATH !== undefined)
    return env.TOOLSHED_PREREQUISITES_PATH.split(path.delimiter).filter(Boolean);
  return [
    ...(env.PATH ?? '').split(path.delimiter).filter(Boolean),
    '/usr/local/sbin',
    '/usr/sbin',
    '/sbin',
    '/usr/bin',
  ];
}

/** Whether `file` exists and may be run. */
function runnable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The prerequisites none of whose programs is in `dirs` (`exists` is the file test, replaceable in unit tests). */
export function missingPrerequisites(dirs, exists = runnable, list = PREREQUISITES) {
  return list.filter((need) => !need.programs.some((program) => dirs.some((dir) => exists(path.join(dir, program)))));
}

/**
 * What to do about `missing`: nothing, install (the command to run, as root or through sudo),
 * or stop with a message. `can` says what this user can do: `{ root, sudo, apt }`.
 */
export function plan(missing, can) {
  if (missing.length === 0) return { action: 'none' };
  const packages = [...new Set(missing.map((need) => need.package))];
  const install = ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages];
  if (can.apt && (can.root || can.sudo)) {
    const prefix = can.root ? [] : ['sudo', '-n'];
    return {
      action: 'install',
      packages,
      steps: [
        [...prefix, 'apt-get', 'update', '-qq'],
        [...prefix, ...install],
      ],
      // Debian starts the packaged services; the tests start their own on free ports.
      stop: missing.filter((need) => need.service).map((need) => [...prefix, 'service', need.service, 'stop']),
    };
  }
  const names = missing.map((need) => `${need.programs[0]}, from the package ${need.package}: ${need.why}`);
  const command = can.apt
    ? `sudo apt-get install -y ${packages.join(' ')}`
    : `install the Debian/Ubuntu packages ${packages.join(' ')} (or your system's equivalents)`;
  return {
    action: 'stop',
    message:
      `npm test needs programs this machine does not have, and this user cannot install them:\n` +
      names.map((name) => `  - ${name}\n`).join('') +
      `Install them with:\n  ${command}\nthen run npm test again.`,
  };
}

/** What this user can do: root, passwordless sudo, apt-get present. */
function abilities(dirs) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const apt = dirs.some((dir) => runnable(path.join(dir, 'apt-get')));
  const sudo =
    !root &&
    dirs.some((dir) => runnable(path.join(dir, 'sudo'))) &&
    spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  return { root, sudo, apt };
}

function main(argv) {
  const checkOnly = argv.includes('--check');
  const dirs = searchPath();
  const missing = missingPrerequisites(dirs);
  const can = checkOnly ? { root: false, sudo: false, apt: runnable('/usr/bin/apt-get') } : abilities(dirs);
  const next = plan(missing, can);
  if (next.action === 'none') return 0;
  if (next.action === 'stop') {
    process.stderr.write(`${next.message}\n`);
    return 1;
  }
  process.stdout.write(
    `npm test: installing the suite's system prerequisites with apt-get (once): ${next.packages.join(' ')}\n`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const step of next.steps) {
    const result = spawnSync(step[0], step.slice(1), { stdio: 'inherit', env });
    if (result.status !== 0) {
      process.stderr.write(
        `npm test: '${step.join(' ')}' failed (exit ${result.status ?? result.signal}); install ` +
          `${next.packages.join(' ')} by hand and run npm test again.\n`,
      );
      return 1;
    }
  }
  for (const step of next.stop) spawnSync(step[0], step.slice(1), { stdio: 'ignore', env });
  const still = missingPrerequisites(searchPath());
  if (still.length > 0) {
    process.stderr.write(
      `npm test: after installing, still missing: ${still.map((need) => need.programs[0]).join(', ')}\n`,
    );
    return 1;
  }
  process.stdout.write('npm test: system prerequisites installed\n');
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = main(process.argv.slice(2));
