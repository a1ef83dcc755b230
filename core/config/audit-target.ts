/**
 * Where the audit log goes (`audit.to`): stdout, stderr, or a file resolved against the config's
 * folder. Never a file inside a folder the model's tools can write (the workspace root, any
 * `fsWrite` grant), by its path or through a link: a model that can write the audit log can forge
 * its lines or erase them, so such a file is refused with CONFIG_INVALID, not moved elsewhere.
 */
import path from 'node:path';
import { ConfigError } from '../../boundary/errors.js';
import { insideAnyReally } from './writable-roots.js';

/**
 * The resolved `audit.to`: 'stdout', 'stderr' or an absolute file; throws CONFIG_INVALID for a file the model's tools
 * could write.
 */
export function auditTarget(to: string, dir: string, writable: readonly string[], file: string | undefined): string {
  if (to === 'stdout' || to === 'stderr') return to;
  const target = path.resolve(dir, to);
  const inside = insideAnyReally(target, writable);
  if (inside === undefined) return target;
  throw new ConfigError(
    `${file ?? 'config object'}: audit.to ${target} lies inside ${inside}, which the model's tools can write: ` +
      `a model that can write the audit log can forge or erase it. Put the log outside the workspace and every ` +
      `fsWrite grant, or send it to stderr.`,
    {
      ...(file ? { file } : {}),
      pointer: '/audit/to',
      expected: "a file outside every folder the model's tools can write",
      fix: 'audit.to: a path such as /var/log/toolshed/audit.jsonl, or stderr',
    },
  );
}
