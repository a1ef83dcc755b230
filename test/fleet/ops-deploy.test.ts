/**
 * What can be checked of deploy/ without a container engine or a cluster:
 * the Kubernetes manifest parses and holds the toolshed Deployment (probes on
 * /healthz and /readyz, the port the image serves), its Service, its config
 * (a state store URL naming the Valkey Service, valid against the schema) and
 * Valkey's Deployment and Service; and the Dockerfile's entry command, run
 * here with the image's paths mapped onto this checkout, serves /mcp and the
 * ops endpoints on a non-loopback address.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { validateConfigObject } from '#internal/core/config/config.js';
import { scratchDir, suiteHome } from '../helpers.js';
import { freePort } from '../support/fleet.js';

/** js-yaml, which cosmiconfig already brings (it ships no types of its own). */
const yaml = createRequire(import.meta.url)('js-yaml') as { loadAll(text: string): unknown[] };

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));

interface Resource {
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}
interface Container {
  name: string;
  image: string;
  ports: Array<{ name: string; containerPort: number }>;
  startupProbe?: { httpGet: { path: string; port: string } };
  livenessProbe?: { httpGet: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
  env?: Array<{ name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
}

const manifest = (yaml.loadAll(readFileSync(`${DEPLOY}kubernetes.yaml`, 'utf8')) as Resource[]).filter(Boolean);
const find = (kind: string, name: string) => manifest.find((r) => r.kind === kind && r.metadata.name === name);
const containerOf = (deployment: Resource | undefined) =>
  (deployment!.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0]!;

/** The Dockerfile's CMD, as the exec-form JSON array it is written in. */
const command = JSON.parse(/^CMD (\[.*\])$/m.exec(readFileSync(`${DEPLOY}Dockerfile`, 'utf8'))![1]!) as string[];

const children: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }),
  );
});

describe('deploy/kubernetes.yaml', () => {
  it('holds the toolshed Deployment, Service and config, and Valkey as a Deployment and Service', () => {
    expect(manifest.map((r) => `${r.kind}/${r.metadata.name}`).sort()).toEqual([
      'ConfigMap/toolshed-config',
      'Deployment/toolshed',
      'Deployment/valkey',
      'Service/toolshed',
      'Service/valkey',
    ]);
    const toolshed = containerOf(find('Deployment', 'toolshed'));
    expect(toolshed.livenessProbe?.httpGet.path).toBe('/healthz');
    expect(toolshed.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(toolshed.startupProbe?.httpGet.path).toBe('/healthz');
    // The probes reach the port the image's command listens on.
    expect(toolshed.ports.find((p) => p.name === toolshed.livenessProbe?.httpGet.port)?.containerPort).toBe(
      Number(command[command.indexOf('--http') + 1]!.split(':')[1]),
    );
    const valkeyPort = containerOf(find('Deployment', 'valkey')).ports[0]!.containerPort;
    const config = JSON.parse(find('ConfigMap', 'toolshed-config')!.data!['toolshed.json']!) as {
      state: { store: string };
    };
    expect(config.state.store).toBe(`redis://valkey:${valkeyPort}`);
    // Every replica has the fleet's message key, from a Secret (docs/fleet.md#the-fleets-message-key).
    expect(toolshed.env?.find((e) => e.name === 'TOOLSHED_STATE_KEY')?.valueFrom?.secretKeyRef).toEqual({
      name: 'toolshed-state-key',
      key: 'key',
    });
    expect(find('Service', 'valkey')).toBeTruthy();
  });

  it('its config and the image default pass the config schema', () => {
    expect(() =>
      validateConfigObject(
        JSON.parse(find('ConfigMap', 'toolshed-config')!.data!['toolshed.json']!),
        'ConfigMap/toolshed-config',
      ),
    ).not.toThrow();
    expect(() =>
      validateConfigObject(JSON.parse(readFileSync(`${DEPLOY}toolshed.json`, 'utf8')), 'deploy/toolshed.json'),
    ).not.toThrow();
  });
});

describe('deploy/Dockerfile', () => {
  it("its entry command serves /mcp behind the token and the ops endpoints on the pod's address", {
    timeout: 60_000,
  }, async () => {
    const port = await freePort();
    const mapped = command.map((arg) =>
      arg
        .replace('/app/', REPO)
        .replace('/etc/toolshed/', DEPLOY)
        .replace('/workspace', scratchDir())
        .replace(':7777', `:${port}`),
    );
    const child = spawn(mapped[0] === 'node' ? process.execPath : mapped[0]!, mapped.slice(1), {
      env: { ...suiteHome(), PATH: process.env.PATH ?? '', TOOLSHED_TOKEN: 'deploy-test' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      let text = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (/listening on http:\/\/0\.0\.0\.0:\d+\/mcp/.test(text)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the image's command exited (${code}):\n${text}`)));
    });
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/mcp`, { method: 'POST', body: '{}' })).status).toBe(401);
  });
});
