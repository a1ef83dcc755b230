/**
 * The "Approvals" panel: every call held for approval, from any client, with its tool, its
 * arguments, who made it, and the time left before it times out; "Approve" and "Deny" (with an
 * optional reason) answer it (`POST api/approvals/ID`). The first answer wins: one that came too
 * late says so.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, describeError, post } from '../api.js';
import { caller, callerInFull, chainText, clock, json } from '../format.js';
import type { PendingApproval } from '../../../core/console/api-types.js';
import { Panel } from './panel.js';

/** Seconds until a held call times out, at `now`. */
function secondsLeft(approval: PendingApproval, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(approval.heldAt) + approval.timeoutMs - now) / 1000));
}

/** One held call with its buttons. */
function Held(props: { approval: PendingApproval; now: number; onAnswered: (id: string, note: string) => void }) {
  const { approval } = props;
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();
  const answer = async (approved: boolean) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await post(
        `approvals/${encodeURIComponent(approval.id)}`,
        approved || !reason.trim() ? { approved } : { approved, reason: reason.trim() },
      );
      props.onAnswered(approval.id, `${approval.tool}: ${approved ? 'approved' : 'denied'}`);
    } catch (error) {
      if (error instanceof ApiError && (error.status === 409 || error.status === 404))
        props.onAnswered(approval.id, `${approval.tool}: already answered elsewhere`);
      else setFailure(describeError(error));
    } finally {
      setBusy(false);
    }
  };
  const left = secondsLeft(approval, props.now);
  return (
    <li class="held" aria-label={`${approval.tool} held for approval`}>
      <div class="held-head">
        <span class="name">{approval.tool}</span>
        <span class="tag">{approval.reason}</span>
        <span class="muted" title={callerInFull(approval)}>
          {caller(approval)} · held {clock(approval.heldAt)} · {left > 0 ? `${left} s left` : 'timing out'}
        </span>
      </div>
      {approval.chain.length > 0 && <p class="muted">called by {chainText(approval.chain)}</p>}
      <pre class="json">{json(approval.args)}</pre>
      <div class="held-actions">
        <button type="button" class="approve" disabled={busy} onClick={() => void answer(true)}>
          Approve
        </button>
        <button type="button" class="deny" disabled={busy} onClick={() => void answer(false)}>
          Deny
        </button>
        <input
          type="text"
          aria-label={`Reason for denying ${approval.tool}`}
          placeholder="reason (optional)"
          value={reason}
          onInput={(event) => setReason(event.currentTarget.value)}
        />
      </div>
      {failure && <p class="problem">{failure}</p>}
    </li>
  );
}

/** The held calls. */
export function Approvals(props: { approvals: PendingApproval[]; onAnswered: (id: string, note: string) => void }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (props.approvals.length === 0) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [props.approvals.length > 0]);
  return (
    <Panel title="Approvals" id="approvals" class={props.approvals.length > 0 ? 'attention' : ''}>
      {props.approvals.length === 0 ? (
        <p class="muted">No call is waiting for approval.</p>
      ) : (
        <ul class="held-list">
          {props.approvals.map((approval) => (
            <Held key={approval.id} approval={approval} now={now} onAnswered={props.onAnswered} />
          ))}
        </ul>
      )}
    </Panel>
  );
}
