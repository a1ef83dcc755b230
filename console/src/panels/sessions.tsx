/**
 * The "Sessions" panel: the MCP sessions `serve` has open (their identity, client and the tools
 * each loaded through tool_search) and the circuit breakers with their states. Refreshed when
 * calls or changes come in, and on demand.
 */
import { useEffect, useState } from 'preact/hooks';
import { describeError, get } from '../api.js';
import { clock } from '../format.js';
import type { SessionsAnswer } from '../../../core/console/api-types.js';
import { Panel } from './panel.js';

/** The sessions and breakers, fetched again whenever `tick` changes. */
export function Sessions(props: { tick: number }) {
  const [answer, setAnswer] = useState<SessionsAnswer>();
  const [failure, setFailure] = useState<string>();
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    get<SessionsAnswer>('sessions', controller.signal)
      .then((sessions) => {
        setAnswer(sessions);
        setFailure(undefined);
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setFailure(describeError(error));
      });
    return () => controller.abort();
  }, [props.tick, asked]);
  return (
    <Panel
      title="Sessions"
      id="sessions"
      actions={
        <button type="button" onClick={() => setAsked(asked + 1)}>
          Refresh sessions
        </button>
      }
    >
      {failure && <p class="problem">{failure}</p>}
      {answer && !answer.serving && (
        <p class="muted">Not serving MCP: only the sessions tool_search knows of are listed.</p>
      )}
      {answer && answer.sessions.length === 0 && <p class="muted">No sessions.</p>}
      {answer && answer.sessions.length > 0 && (
        <ul class="sessions">
          {answer.sessions.map((session) => (
            <li key={session.id}>
              <code>{session.id}</code>
              {session.identity && <span> · {session.identity.subject}</span>}
              {session.client && <span class="muted"> · {session.client}</span>}
              {session.lastSeen && <span class="muted"> · last seen {clock(session.lastSeen)}</span>}
              <div class="muted">
                loaded: {session.loaded.length > 0 ? session.loaded.join(', ') : 'nothing deferred'}
              </div>
            </li>
          ))}
        </ul>
      )}
      <h3>Circuit breakers</h3>
      {answer && answer.breakers.length === 0 && <p class="muted">No breaker has counted a failure.</p>}
      {answer && answer.breakers.length > 0 && (
        <ul class="breakers">
          {answer.breakers.map((breaker) => (
            <li key={breaker.key} class={`breaker breaker-${breaker.state}`}>
              <span class="name">{breaker.key}</span> <span class="tag">{breaker.state}</span>{' '}
              <span class="muted">{breaker.failures} failures</span>
              {breaker.until && <span class="muted"> · until {clock(breaker.until)}</span>}
              {breaker.reason && <div class="reason">{breaker.reason}</div>}
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}
