/**
 * The page's header: toolshed's version, the config file, who the console works as, and the
 * state of the live stream.
 */
import { underRoot } from '../format.js';
import type { StreamState } from '../stream.js';
import type { Overview } from '../../../core/console/api-types.js';

const STATE_WORDS: Record<StreamState, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  'signed out': 'needs a token',
  closed: 'closed',
};

/** The header bar. */
export function Header(props: { overview: Overview | undefined; stream: StreamState }) {
  const { overview, stream } = props;
  return (
    <header class="top">
      <h1>toolshed console</h1>
      <dl class="facts">
        <div>
          <dt>version</dt>
          <dd>{overview?.version ?? '…'}</dd>
        </div>
        <div>
          <dt>config</dt>
          <dd class="path" title={overview?.config.file ?? undefined}>
            {overview
              ? overview.config.file
                ? underRoot(overview.config.file, overview.config.root)
                : 'none (embedded default)'
              : '…'}
          </dd>
        </div>
        <div>
          <dt>you are</dt>
          <dd>
            {overview
              ? overview.identity
                ? `${overview.identity.subject}${overview.identity.issuer ? ` (${overview.identity.issuer})` : ''}`
                : 'the operator (no sign-in identity)'
              : '…'}
          </dd>
        </div>
        <div>
          <dt>serving</dt>
          <dd>
            {overview
              ? overview.serving.mcp
                ? `MCP over ${overview.serving.transport ?? 'http'}${overview.serving.stateless ? ' (stateless)' : ''}`
                : 'console only'
              : '…'}
          </dd>
        </div>
      </dl>
      <p class={`stream stream-${stream.replace(/\W/g, '')}`} role="status">
        <span class="dot" aria-hidden="true" />
        Live stream: {STATE_WORDS[stream]}
      </p>
    </header>
  );
}
