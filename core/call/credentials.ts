/**
 * The caller's credentials a call needs, asked of the embedder's credentials provider
 * (`createToolHost({ credentials })`): the secrets a tool declares (`ToolSpec.secrets`, handed to
 * its handler as ctx.secrets for that call only), and a token for a remote MCP server used on the
 * caller's behalf (core/mcp-client/per-identity.ts). Nothing here keeps a value: each call asks
 * again, and whatever the provider caches is its own affair. A value never reaches a message.
 */
import { failure, type CallOutcome } from '../../boundary/outcome.js';
import type { CredentialProvider, CredentialRequest, Identity } from '../../boundary/identity.js';

/** What asking came to: the value, or why there is none (in words naming what was asked, never a value). */
export type CredentialAnswer = { ok: true; value: string } | { ok: false; why: string };

/** What was asked for, in words: "secret GITHUB_TOKEN (plugin gh-tools)", "token for the MCP server github". */
function asked(request: Omit<CredentialRequest, 'identity' | 'signal'>): string {
  return request.kind === 'secret' ? `secret ${request.name} (plugin ${request.plugin})` : `token for the MCP server ${request.name}`;
}

/**
 * Asks `provider` for one credential. A provider that is missing, returns nothing (or an empty
 * string), or throws, answers why not; its error's message is not passed on, since a provider's
 * error may quote what it holds.
 */
export async function askProvider(provider: CredentialProvider | undefined, request: CredentialRequest): Promise<CredentialAnswer> {
  const what = asked(request);
  const who = request.identity.subject;
  if (!provider) return { ok: false, why: `the ${what} is the caller's own, and the host has no credentials provider to ask for it (createToolHost({ credentials }))` };
  let value: string | undefined;
  try {
    value = await provider(request);
  } catch (error) {
    const name = (error as Error)?.name ?? 'Error';
    return { ok: false, why: `the credentials provider failed (${name}) when asked for the ${what} (for ${who})` };
  }
  if (typeof value !== 'string' || value === '') return { ok: false, why: `the credentials provider gave no ${what} (asked for ${who})` };
  return { ok: true, value };
}

/**
 * The secrets `tool` declares, for the caller `identity`, as ctx.secrets will hold them; or the
 * CREDENTIALS_UNAVAILABLE outcome the call ends with before its handler runs (no identity, or one
 * secret the provider has none of). Asked one after another, in the order declared.
 */
export async function callSecrets(
  provider: CredentialProvider | undefined,
  tool: { name: string; plugin: string; secrets: readonly string[] },
  identity: Identity | undefined,
  signal?: AbortSignal,
): Promise<{ secrets: Record<string, string> } | { refused: CallOutcome }> {
  if (!identity) {
    return { refused: failure('CREDENTIALS_UNAVAILABLE', `${tool.name} acts for its caller (it needs the caller's ${tool.secrets.join(', ')}), and this call is made for no identity`) };
  }
  const secrets: Record<string, string> = {};
  for (const name of tool.secrets) {
    const answer = await askProvider(provider, { kind: 'secret', name, plugin: tool.plugin, identity, ...(signal ? { signal } : {}) });
    if (!answer.ok) return { refused: failure('CREDENTIALS_UNAVAILABLE', `${tool.name} could not run: ${answer.why}`) };
    secrets[name] = answer.value;
  }
  return { secrets };
}
