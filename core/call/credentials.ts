/**
 * The caller's secrets a call needs (`ToolSpec.secrets`), asked of the embedder's credentials
 * provider (`createToolHost({ credentials })`) before the handler runs, and handed to it as
 * ctx.secrets for that call only. Nothing here keeps a value: each call asks again, and whatever
 * the provider caches is its own affair. A value never reaches a message.
 */
import { failure, type CallOutcome } from '../../boundary/outcome.js';
import { askProvider } from '../../boundary/credentials.js';
import type { CredentialProvider, Identity } from '../../boundary/identity.js';

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
    return {
      refused: failure(
        'CREDENTIALS_UNAVAILABLE',
        `${tool.name} acts for its caller (it needs the caller's ${tool.secrets.join(', ')}), and this call is ` +
          `made for no identity`,
      ),
    };
  }
  const secrets: Record<string, string> = {};
  for (const name of tool.secrets) {
    const answer = await askProvider(provider, {
      kind: 'secret',
      name,
      plugin: tool.plugin,
      identity,
      ...(signal ? { signal } : {}),
    });
    if (!answer.ok) return { refused: failure('CREDENTIALS_UNAVAILABLE', `${tool.name} could not run: ${answer.why}`) };
    secrets[name] = answer.value;
  }
  return { secrets };
}
