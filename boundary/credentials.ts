/**
 * Asking the embedder's credentials provider (`createToolHost({ credentials })`) for one of a
 * caller's credentials, the one way every asker does it: the secrets a tool declares
 * (core/call/credentials.ts) and tokens for a remote MCP server used on the caller's behalf
 * (core/mcp-client/per-identity.ts). A refusal is words naming what was asked, never a value.
 */
import type { CredentialProvider, CredentialRequest } from './identity.js';

/** What asking came to: the value, or why there is none (in words naming what was asked, never a value). */
type CredentialAnswer = { ok: true; value: string } | { ok: false; why: string };

/** What was asked for, in words: "secret GITHUB_TOKEN (plugin gh-tools)", "token for the MCP server github". */
function asked(request: Omit<CredentialRequest, 'identity' | 'signal'>): string {
  return request.kind === 'secret'
    ? `secret ${request.name} (plugin ${request.plugin})`
    : `token for the MCP server ${request.name}`;
}

/**
 * Asks `provider` for one credential. A provider that is missing, returns nothing (or an empty
 * string), or throws, answers why not; its error's message is not passed on, since a provider's
 * error may quote what it holds.
 */
export async function askProvider(
  provider: CredentialProvider | undefined,
  request: CredentialRequest,
): Promise<CredentialAnswer> {
  const what = asked(request);
  const who = request.identity.subject;
  if (!provider)
    return {
      ok: false,
      why:
        `the ${what} is the caller's own, and the host has no credentials provider to ask for it ` +
        `(createToolHost({ credentials }))`,
    };
  let value: string | undefined;
  try {
    value = await provider(request);
  } catch (error) {
    const name = (error as Error)?.name ?? 'Error';
    return { ok: false, why: `the credentials provider failed (${name}) when asked for the ${what} (for ${who})` };
  }
  if (typeof value !== 'string' || value === '')
    return { ok: false, why: `the credentials provider gave no ${what} (asked for ${who})` };
  return { ok: true, value };
}
