// @ts-check
// toolshed's own matcher, the one the sandboxes use, so both refuse the same paths.
// toolshed's toolkit, `toolshed/toolkit` (docs/plugins.md, "The toolkit"), by the path of its file in the
// package: this plugin ships inside toolshed under a package.json of its own, where Node does not resolve
// the name 'toolshed' (self-reference stops at the nearest package.json). A third-party plugin imports
// 'toolshed/toolkit'.
import { protectedBy, protectedMessage } from '../../../dist/sandbox/toolkit.js';

/** @typedef {import('toolshed/plugin').ToolContext} ToolContext */

/**
 * Refuses a write to `real` (a real path: checked, or read back from an opened
 * descriptor) when the host protects it (`ctx.roots.protect`: a config file,
 * hook modules, `.git/hooks`, …), with PERMISSION_DENIED naming `shown` and why.
 * @param {ToolContext} ctx
 * @param {string} shown  the path as the model should see it
 * @param {string} real
 */
export function refuseProtected(ctx, shown, real) {
  const entry = protectedBy(real, ctx.roots?.protect);
  if (entry === undefined) return;
  throw Object.assign(new Error(protectedMessage(shown, entry, real)), {
    code: 'PERMISSION_DENIED',
    data: { path: real, protected: entry },
  });
}
