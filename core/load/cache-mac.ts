/**
 * The manifest cache's authentication: an HMAC-SHA256 over each stored entry, with a
 * 32-byte random key kept in the user's state folder (`cache.key`, 0600, created on
 * first use). The cache folder can be configured, shared or planted; the key cannot be
 * read by the model's tools (the state folder is outside every workspace and
 * protected), so an entry that verifies was written by a toolshed of this user.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { createPrivateFile, ensurePrivateDir, readPrivateFile, writePrivateFile } from '../../boundary/private-dir.js';
import { userStateDir } from '../state/user-dirs.js';

const KEY_FILE = 'cache.key';
const KEY_BYTES = 32;

/** Signs and verifies cache entries with the user's key. */
export interface CacheMac {
  sign(body: string): string;
  verify(body: string, mac: unknown): boolean;
}

function parseKey(text: string | undefined): Buffer | undefined {
  const hex = text?.trim();
  return hex && /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/**
 * The key in `stateDir/cache.key`, created when missing (two hosts starting at once create
 * it once: the second reads the first's), replaced when it does not hold a key.
 */
function loadKey(stateDir: string): Buffer {
  const folder = ensurePrivateDir(stateDir);
  const file = path.join(folder, KEY_FILE);
  const fresh = () => `${randomBytes(KEY_BYTES).toString('hex')}\n`;
  let text = readPrivateFile(file);
  if (text === undefined) {
    createPrivateFile(file, fresh());
    text = readPrivateFile(file);
  }
  const existing = parseKey(text);
  if (existing) return existing;
  writePrivateFile(file, fresh());
  const written = parseKey(readPrivateFile(file));
  if (!written) throw new Error(`${file} does not hold a key after writing one`);
  return written;
}

/**
 * The MAC over the user's key, or throws (PERMISSION_DENIED from private-dir.ts, or no
 * state folder): without a key nothing in the cache can be trusted, so the cache is off.
 */
export function cacheMac(stateDir: string | undefined = userStateDir()): CacheMac {
  if (stateDir === undefined) throw new Error('there is no per-user state folder to keep its key in (no home folder)');
  const key = loadKey(stateDir);
  const sign = (body: string) => createHmac('sha256', key).update(body).digest('hex');
  return {
    sign,
    verify(body, mac) {
      if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
      return timingSafeEqual(Buffer.from(sign(body), 'hex'), Buffer.from(mac, 'hex'));
    },
  };
}
