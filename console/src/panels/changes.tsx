/**
 * The "Changes" panel: the host's changes (a check flipping, a plugin reloaded, an MCP server
 * going away and back, a definition changed), plugins' log lines and warnings, newest first.
 */
import { clock } from '../format.js';
import type { HostNews } from '../live.js';
import { Panel } from './panel.js';

/** One entry's line. */
function NewsLine(props: { news: HostNews }) {
  const { news } = props;
  if (news.type === 'change') {
    const { change } = news;
    return (
      <>
        <span class="tag">{change.kind}</span> <span class="name">{change.name}</span>
        {change.from && change.to && (
          <span class="muted">
            {' '}
            {change.from} → {change.to}
          </span>
        )}{' '}
        <span>{change.text}</span>
      </>
    );
  }
  if (news.type === 'log') {
    const source = news.tool ?? news.plugin;
    return (
      <>
        <span class={`tag level-${news.level}`}>{news.level}</span> <span class="name">{source}</span>{' '}
        <span>{news.message}</span>
      </>
    );
  }
  return (
    <>
      <span class="tag level-warning">warning</span> <span>{news.message}</span>
    </>
  );
}

/** The changes list. */
export function Changes(props: { news: HostNews[] }) {
  return (
    <Panel title="Changes" id="changes">
      {props.news.length === 0 ? (
        <p class="muted">Nothing has changed since the page opened.</p>
      ) : (
        <ol class="news" reversed>
          {props.news.map((news, index) => (
            <li key={`${news.at}-${props.news.length - index}`}>
              <time class="muted">{clock(news.at)}</time> <NewsLine news={news} />
            </li>
          ))}
        </ol>
      )}
    </Panel>
  );
}
