/**
 * What toolshed keeps of its OAuth login to one remote MCP server: the client it registered as,
 * the tokens, the discovery results (which authorization server, its endpoints) and the loopback
 * port the login last listened on. One file per server in the user's private state folder
 * (private-dir.ts: 0700, checked on use, written atomically), named by the server's config name
 * and URL, so an entry renamed or pointed elsewhere never reuses another server's tokens. Never in
 * the workspace, never in the config; a configured client secret is never written.
 */
import { createHash } from 'node:crypto';
import { lstatSync, rmSync } from 'node:fs';
import path from 'node:path';
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from '../../boundary/private-dir.js';
import { codedError } from '../../boundary/errors.js';

/** Tokens as kept: the token response, its issuer stamp, and when the access token expires. */
export type KeptTokens = StoredOAuthTokens & {
  /** epoch ms the access token expires at (from `expires_in` when it was saved) */
  expires_at?: number;
};

/** One server's OAuth state on disk. */
export interface OAuthRecord {
  version: 1;
  /** the server's config name and URL the record belongs to */
  server: string;
  url: string;
  /**
   * the client toolshed registered as (dynamic registration or a metadata document); absent for a configured client id
   */
  client?: StoredOAuthClientInformation;
  tokens?: KeptTokens;
  discovery?: OAuthDiscoveryState;
  /** the loopback port of the last login, tried first next time (a registered redirect URI names it) */
  redirectPort?: number;
  /** ISO time of the last write */
  updatedAt?: string;
}

/** The file of server `name` at `url` under the state folder `stateDir`. */
export function oauthFile(stateDir: string, name: string, url: string): string {
  return path.join(
    stateDir,
    'mcp-oauth',
    `${createHash('sha256').update(`${name}\0${url}`).digest('hex').slice(0, 32)}.json`,
  );
}

/** There is no safe state folder (no home folder): nothing can be kept, and the message says what to set. */
function noStateDir(name: string): never {
  throw codedError(
    'PERMISSION_DENIED',
    `no private state folder to keep the OAuth tokens of ${name} in (set XDG_STATE_HOME or HOME)`,
  );
}

/** One server's record, read when its file changed and written through a temp file and a rename. */
export class OAuthState {
  private record: OAuthRecord;
  /** the file's identity when last read or written */
  private stamp = '';

  constructor(
    private readonly name: string,
    private readonly url: string,
    /** undefined when the user has no safe state folder: nothing is kept then */
    readonly file: string | undefined,
  ) {
    this.record = { version: 1, server: name, url };
  }

  /** The record as on disk now (read again only when the file changed). */
  read(): OAuthRecord {
    if (!this.file) return this.record;
    const stamp = this.currentStamp();
    if (stamp === this.stamp) return this.record;
    // No file: nothing to check, and no folder is made for a server that never logged in.
    if (stamp === 'none') {
      this.stamp = stamp;
      return (this.record = { version: 1, server: this.name, url: this.url });
    }
    ensurePrivateDir(path.dirname(this.file));
    const text = readPrivateFile(this.file);
    const parsed = text === undefined ? undefined : (JSON.parse(text) as OAuthRecord);
    // A file of another server (a hash collision, a file copied by hand) is not this server's.
    this.record =
      parsed?.version === 1 && parsed.server === this.name && parsed.url === this.url
        ? parsed
        : { version: 1, server: this.name, url: this.url };
    this.stamp = stamp;
    return this.record;
  }

  /** Whether the file changed since it was last read or written here (another process logged in). */
  changed(): boolean {
    return this.file !== undefined && this.currentStamp() !== this.stamp;
  }

  /** Applies `change` to the current record and writes it. */
  update(change: (record: OAuthRecord) => OAuthRecord): OAuthRecord {
    if (!this.file) noStateDir(this.name);
    const next = {
      ...change(this.read()),
      version: 1 as const,
      server: this.name,
      url: this.url,
      updatedAt: new Date().toISOString(),
    };
    ensurePrivateDir(path.dirname(this.file));
    writePrivateFile(this.file, `${JSON.stringify(next, null, 2)}\n`);
    this.record = next;
    this.stamp = this.currentStamp();
    return next;
  }

  /** Forgets everything kept for the server (`toolshed auth NAME --logout`); true when there was a file. */
  forget(): boolean {
    if (!this.file) return false;
    const existed = this.currentStamp() !== 'none';
    if (existed) {
      ensurePrivateDir(path.dirname(this.file));
      rmSync(this.file, { force: true });
    }
    this.record = { version: 1, server: this.name, url: this.url };
    this.stamp = 'none';
    return existed;
  }

  private currentStamp(): string {
    const info = lstatSync(this.file!, { throwIfNoEntry: false });
    return info ? `${info.ino}:${info.size}:${info.mtimeMs}` : 'none';
  }
}

/** `tokens` with `expires_at` worked out from `expires_in`, as of `now`. */
export function keptTokens(tokens: StoredOAuthTokens, now = Date.now()): KeptTokens {
  return { ...tokens, ...(tokens.expires_in !== undefined ? { expires_at: now + tokens.expires_in * 1000 } : {}) };
}
