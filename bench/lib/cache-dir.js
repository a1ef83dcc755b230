// The manifest cache folder of a scenario: beside its temp folder, not inside it. The
// scenarios use their folder as the hosts' workspace, and a host refuses a cache.dir inside
// the workspace (docs/security.md, "Caches hold no trust"); run.js removes both.
import path from 'node:path';

/** The cache folder for a scenario whose workspace is `tmp`. */
export function cacheDirFor(tmp) {
  return path.join(path.dirname(tmp), `${path.basename(tmp)}-cache`);
}
