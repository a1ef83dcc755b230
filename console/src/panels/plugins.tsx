/**
 * The "Plugins" panel: each plugin and MCP server with its tier, trust, what enforces its
 * permissions (explain's enforcement), the protections its child runs under, its load time, and a
 * failure's code and message.
 */
import type { EnforcedPermission, PluginReport } from '../../../core/console/api-types.js';
import { duration, json } from '../format.js';
import { Panel } from './panel.js';

/** `sandbox: …how` or the words saying nothing enforces it. */
function enforced(permission: EnforcedPermission | undefined): string {
  if (permission === undefined) return '—';
  if (typeof permission === 'string') return permission;
  return `${permission.by}: ${permission.how}`;
}

/** The protections a process-tier child runs under, as `name: value` lines. */
function protectionLines(protections: object | undefined): string[] {
  if (!protections) return [];
  return Object.entries(protections).map(
    ([name, value]) => `${name}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`,
  );
}

/** One plugin's row. */
function PluginRow(props: { plugin: PluginReport }) {
  const { plugin } = props;
  const enforcement = plugin.permissions?.enforced;
  return (
    <tr class={plugin.status === 'failed' ? 'failed' : ''}>
      <th scope="row">
        <span class="name">{plugin.name}</span>
        {plugin.version && <span class="muted"> {plugin.version}</span>}
        {plugin.builtin && <span class="tag">builtin</span>}
      </th>
      <td class="nowrap">{plugin.tier ?? '—'}</td>
      <td class="nowrap">{plugin.trust ?? '—'}</td>
      <td class="nowrap">{duration(plugin.loadMs)}</td>
      <td class={plugin.status === 'failed' ? '' : 'nowrap'}>
        {plugin.status === 'failed' && plugin.error ? (
          <span class="problem">
            <code>{plugin.error.code}</code> {plugin.error.message}
          </span>
        ) : (
          <span>
            loaded · {plugin.tools ?? 0} {plugin.tools === 1 ? 'tool' : 'tools'}
            {plugin.mcp?.state ? ` · ${plugin.mcp.state}` : ''}
          </span>
        )}
      </td>
      <td class="protections">
        {enforcement ? (
          <ul>
            <li>files: {enforced(enforcement.fs)}</li>
            <li>network: {enforced(enforcement.network)}</li>
            <li>env: {enforced(enforcement.env)}</li>
            {enforcement.note && <li class="note">{enforcement.note}</li>}
          </ul>
        ) : (
          '—'
        )}
        {plugin.protections && (
          <details>
            <summary>child protections</summary>
            <pre class="json">{protectionLines(plugin.protections).join('\n') || json(plugin.protections)}</pre>
          </details>
        )}
      </td>
    </tr>
  );
}

/** The plugins table. */
export function Plugins(props: { plugins: PluginReport[] | undefined; notInForce: string[] | undefined }) {
  return (
    <Panel title="Plugins" id="plugins">
      {props.notInForce && props.notInForce.length > 0 && (
        <ul class="warnings" aria-label="Protections not in force">
          {props.notInForce.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">plugin</th>
              <th scope="col">tier</th>
              <th scope="col">trust</th>
              <th scope="col">load</th>
              <th scope="col">status</th>
              <th scope="col">protections in force</th>
            </tr>
          </thead>
          <tbody>
            {(props.plugins ?? []).map((plugin) => (
              <PluginRow key={plugin.name} plugin={plugin} />
            ))}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}
