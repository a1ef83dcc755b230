/**
 * The views a listener (`serve --http`, the console) serves its callers by: `host.as(identity)` for each
 * verified caller (their `access` rule's tools, approvals and quotas, every
 * call made for them). A view is made once per presented token, not per
 * request, and kept in a small LRU: a token names one identity with one set
 * of claims (so one rule), and the view carries that token for the calls that
 * act for the caller. A client that refreshes its token gets a new view; the
 * least recently used ones are closed.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Identity } from '../../boundary/identity.js';
import type { ToolHost } from '../host/host.js';

/** Views kept at once: callers active within a few minutes, each on the token they present now. */
const MAX_VIEWS = 256;

/** The identity views of one endpoint over `host`. */
export class IdentityViews {
  private readonly views = new LRUCache<string, ToolHost>({
    max: MAX_VIEWS,
    // A view falls out only when unused for longest; calls it already started finish on it.
    dispose: (view, _key, reason) => {
      if (reason === 'evict') view.close().catch(() => {});
    },
  });

  constructor(private readonly host: ToolHost) {}

  /** The view `identity` is served by; throws what `host.as` throws (ACCESS_DENIED when no access rule matches). */
  of(identity: Identity): ToolHost {
    const key = createHash('sha256')
      .update(identity.token ?? JSON.stringify([identity.issuer, identity.subject]))
      .digest('base64url');
    let view = this.views.get(key);
    if (!view) {
      view = this.host.as(identity);
      this.views.set(key, view);
    }
    return view;
  }

  /** Closes every view. */
  async close(): Promise<void> {
    const all = [...this.views.values()];
    this.views.clear();
    await Promise.allSettled(all.map((view) => view.close()));
  }
}
