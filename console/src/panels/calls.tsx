/**
 * The "Calls" panel: the live list of calls that ended (newest first, the page keeps the last
 * 500): time, tool, session, caller chain, tier, outcome code, duration and result size; filters
 * by tool and by outcome; "Show arguments and results" reopens the stream with payloads.
 */
import { useState } from 'preact/hooks';
import { caller, callerInFull, chainText, clock, duration, json, size } from '../format.js';
import type { CallEntry } from '../../../core/console/api-types.js';
import { Panel } from './panel.js';

type OutcomeFilter = 'all' | 'ok' | 'failures';

/** Whether a call passes the filters. */
function shown(call: CallEntry, tool: string, outcome: OutcomeFilter): boolean {
  if (tool && call.tool !== tool) return false;
  if (outcome === 'ok') return call.code === 'OK';
  if (outcome === 'failures') return call.code !== 'OK';
  return true;
}

/** The live call list. */
export function Calls(props: { calls: CallEntry[]; payloads: boolean; onPayloads: (on: boolean) => void }) {
  const [tool, setTool] = useState('');
  const [outcome, setOutcome] = useState<OutcomeFilter>('all');
  const tools = [...new Set(props.calls.map((call) => call.tool))].sort();
  const calls = props.calls.filter((call) => shown(call, tool, outcome));
  return (
    <Panel title="Calls" id="calls">
      <div class="toolbar">
        <label>
          Tool{' '}
          <select value={tool} onChange={(event) => setTool(event.currentTarget.value)}>
            <option value="">all tools</option>
            {tools.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Outcome{' '}
          <select value={outcome} onChange={(event) => setOutcome(event.currentTarget.value as OutcomeFilter)}>
            <option value="all">all</option>
            <option value="ok">OK</option>
            <option value="failures">failures</option>
          </select>
        </label>
        <label class="toggle">
          <input
            type="checkbox"
            checked={props.payloads}
            onChange={(event) => props.onPayloads(event.currentTarget.checked)}
          />
          Show arguments and results
        </label>
        <span class="muted">
          {calls.length} of {props.calls.length}
        </span>
      </div>
      <div class="scroll calls-scroll">
        <table class="calls">
          <thead>
            <tr>
              <th scope="col">time</th>
              <th scope="col">tool</th>
              <th scope="col">session</th>
              <th scope="col">chain</th>
              <th scope="col">tier</th>
              <th scope="col">outcome</th>
              <th scope="col">duration</th>
              <th scope="col">result</th>
            </tr>
          </thead>
          <tbody>
            {calls.map((call) => (
              <CallRow key={call.id} call={call} payloads={props.payloads} />
            ))}
          </tbody>
        </table>
        {calls.length === 0 && <p class="muted">No calls yet: they appear here as they end.</p>}
      </div>
    </Panel>
  );
}

/** One call's row, with its arguments and result when the stream carries them. */
function CallRow(props: { call: CallEntry; payloads: boolean }) {
  const { call } = props;
  const hasPayload = props.payloads && (call.args !== undefined || call.result !== undefined);
  return (
    <tr class={call.code === 'OK' ? 'ok' : 'failed'}>
      <td>{clock(call.time)}</td>
      <td class="name">
        {call.tool}
        {hasPayload && (
          <details>
            <summary>arguments and result</summary>
            <pre class="json">{json(call.args)}</pre>
            <pre class="output">{call.result ?? ''}</pre>
          </details>
        )}
      </td>
      <td title={callerInFull(call)}>{caller(call)}</td>
      <td>{chainText(call.chain)}</td>
      <td>{call.tier ?? '—'}</td>
      <td>
        <code class={call.code === 'OK' ? 'code-ok' : 'code-failed'}>{call.code}</code>
      </td>
      <td>{duration(call.durationMs)}</td>
      <td>{size(call.resultChars)}</td>
    </tr>
  );
}
