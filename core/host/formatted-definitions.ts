/**
 * What `definitions()` returns for one surface: its exposure's definitions (with what the
 * session's searches loaded) in the provider's format, memoized per format while the exposure's
 * lists stay the same, so a repeat call returns the same array.
 */
import { ToolshedError } from '../../boundary/errors.js';
import { formatDefinitions, FORMATS, type DefinitionFormat, type ToolsByFormat } from '../providers/index.js';
import { toAnthropicDeferred } from '../providers/anthropic.js';
import { SEARCH_TOOL } from '../expose/search-definition.js';
import type { Exposure } from '../expose/exposure.js';
import type { ResolvedConfig } from '../config/config.js';
import type { ToolDefinition } from '../providers/types.js';
import type { DefinitionsOptions } from './tool-host.js';

/** One format's memo, with the lists it was made from. */
interface Memo {
  shown: ToolDefinition[];
  definitions: ToolDefinition[];
  deferred: ReadonlySet<string>;
  value: ToolsByFormat[DefinitionFormat][];
}

/** The definitions a session is shown beyond the shared list: the exposure's own, plus the tools it loaded. */
type SessionDefinitions = (exposure: Exposure, sessionId: string | undefined) => Promise<ToolDefinition[]>;

/** A surface's formatted definitions. */
export class FormattedDefinitions {
  // Keyed by the lists, not the exposure: a recompute that changed nothing hands back the same lists.
  private readonly memo = new Map<string, Memo>();

  constructor(
    private readonly search: ResolvedConfig['search'],
    private readonly forSession: SessionDefinitions,
  ) {}

  /** The definitions of the exposure `current()` computes, as `options` asks; USAGE for an unknown format. */
  async of<F extends DefinitionFormat = 'openai'>(
    current: () => Promise<Exposure>,
    options: DefinitionsOptions<F>,
  ): Promise<ToolsByFormat[F][]> {
    const format = (options.format ?? 'openai') as F;
    const strict = options.strict ?? false;
    if (!FORMATS.includes(format))
      throw new ToolshedError('USAGE', `unknown format '${format}'; use one of ${FORMATS.join(', ')}`);
    const exposure = await current();
    const native = format === 'anthropic' && this.search.native !== false && exposure.deferred.size > 0;
    const defs = native ? exposure.shown : await this.forSession(exposure, options.sessionId);
    // A session's own additions are formatted per call; the shared list is memoized per format.
    if (defs !== exposure.shown) return formatDefinitions(defs, format, { strict });
    // Strict and plain OpenAI output differ, so each combination is memoized on its own.
    const key = strict && (format === 'openai' || format === 'responses') ? `${format}:strict` : format;
    const memo = this.memo.get(key);
    if (memo && sameLists(memo, exposure)) return memo.value as ToolsByFormat[F][];
    const value = native
      ? toAnthropicDeferred(exposure.definitions, exposure.deferred, this.search.native || 'bm25', SEARCH_TOOL)
      : formatDefinitions(exposure.shown, format, { strict });
    this.memo.set(key, {
      shown: exposure.shown,
      definitions: exposure.definitions,
      deferred: exposure.deferred,
      value,
    });
    return value as ToolsByFormat[F][];
  }
}

/** Whether `memo` was made from the lists `exposure` has. */
function sameLists(memo: Memo, exposure: Exposure): boolean {
  return (
    memo.shown === exposure.shown && memo.definitions === exposure.definitions && memo.deferred === exposure.deferred
  );
}
