/**
 * The console page: the header, then the panels (Layers, Approvals, Calls, Tools and the selected
 * tool, Plugins, Sessions, Changes, Search). It holds the overview (`api/overview`, fetched again
 * when the host's generation moves), the live stream's state, and the sign-in form a 401 brings up.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, get, whenUnauthorized } from './api.js';
import { EMPTY, type Live, reduce } from './live.js';
import { openStream, type StreamState } from './stream.js';
import { readToken, storeToken } from './token.js';
import type { Overview } from '../../core/console/api-types.js';
import { Approvals } from './panels/approvals.js';
import { Calls } from './panels/calls.js';
import { Changes } from './panels/changes.js';
import { Header } from './panels/header.js';
import { Layers } from './panels/layers.js';
import { Plugins } from './panels/plugins.js';
import { Search } from './panels/search.js';
import { Sessions } from './panels/sessions.js';
import { SignIn } from './panels/sign-in.js';
import { ToolDetail } from './panels/tool-detail.js';
import { Tools } from './panels/tools.js';

/** How long after a call or change the Sessions panel is fetched again. */
const SESSIONS_SETTLE_MS = 1000;

/** What the notice says when a held call was answered elsewhere: by its caller, a timeout, or its cancellation. */
function settledNote(settled: NonNullable<Live['settled']>): string {
  if (settled.by === 'timeout') return `${settled.tool}: timed out waiting for approval`;
  if (settled.by === 'cancelled') return `${settled.tool}: the call was cancelled`;
  return (
    `${settled.tool}: ${settled.approved ? 'approved' : 'denied'} by the caller` +
    `${settled.reason ? ` (${settled.reason})` : ''}`
  );
}

/** The whole page. */
export function App() {
  const [signedIn, setSignedIn] = useState(0);
  const [needsToken, setNeedsToken] = useState(false);
  const [overview, setOverview] = useState<Overview>();
  const [failure, setFailure] = useState<{ text: string; denied: boolean }>();
  const [live, setLive] = useState<Live>(EMPTY);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [payloads, setPayloads] = useState(false);
  const [selected, setSelected] = useState<string>();
  const [notice, setNotice] = useState('');
  const [sessionsTick, setSessionsTick] = useState(0);
  const seen = useRef(new Set<string>());

  useEffect(() => whenUnauthorized(() => setNeedsToken(true)), []);

  useEffect(() => {
    if (needsToken) return;
    const controller = new AbortController();
    get<Overview>('overview', controller.signal)
      .then((answer) => {
        setOverview(answer);
        setFailure(undefined);
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted)
          setFailure({ text: describeError(error), denied: error instanceof ApiError && error.status === 403 });
      });
    return () => controller.abort();
  }, [live.generation, signedIn, needsToken]);

  useEffect(() => {
    if (needsToken) return;
    return openStream(payloads, {
      state: setStream,
      event: (event) => setLive((current) => reduce(current, event)),
    });
  }, [payloads, signedIn, needsToken]);

  useEffect(() => {
    const fresh = live.approvals.filter((approval) => !seen.current.has(approval.id));
    for (const approval of fresh) seen.current.add(approval.id);
    if (fresh.length > 0) setNotice(`${fresh.map((approval) => approval.tool).join(', ')} waiting for approval`);
    document.title = live.approvals.length > 0 ? `(${live.approvals.length}) toolshed console` : 'toolshed console';
  }, [live.approvals]);

  useEffect(() => {
    const settled = live.settled;
    if (settled && settled.by !== 'console') setNotice(settledNote(settled));
  }, [live.settled]);

  useEffect(() => {
    const timer = setTimeout(() => setSessionsTick((tick) => tick + 1), SESSIONS_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [live.calls[0]?.id, live.generation]);

  const answered = useCallback((id: string, note: string) => {
    setLive((current) => ({ ...current, approvals: current.approvals.filter((approval) => approval.id !== id) }));
    setNotice(note);
  }, []);

  if (needsToken)
    return (
      <SignIn
        failed={readToken() !== undefined}
        onToken={(token) => {
          storeToken(token);
          setNeedsToken(false);
          setSignedIn((n) => n + 1);
        }}
      />
    );

  return (
    <>
      <Header overview={overview} stream={stream} />
      <p class="notice" role="status" aria-live="polite">
        {notice}
      </p>
      {failure && (
        <div class="problem banner" role="alert">
          {failure.text}
          {failure.denied && readToken() !== undefined && (
            <button
              type="button"
              onClick={() => {
                storeToken('');
                setNeedsToken(true);
              }}
            >
              Use another token
            </button>
          )}
        </div>
      )}
      <main class="grid">
        <div class="row two">
          <Layers funnel={overview?.funnel} />
          <Approvals approvals={live.approvals} onAnswered={answered} />
        </div>
        <Calls calls={live.calls} payloads={payloads} onPayloads={setPayloads} />
        <div class="row split">
          <Tools tools={overview?.tools} selected={selected} onSelect={setSelected} />
          <ToolDetail name={selected} generation={live.generation} />
        </div>
        <Plugins plugins={overview?.plugins} notInForce={overview?.protection?.notInForce} />
        <div class="row three">
          <Sessions tick={sessionsTick} />
          <Changes news={live.news} />
          <Search />
        </div>
      </main>
    </>
  );
}
