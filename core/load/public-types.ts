/**
 * The load stage's types the public API shows (in explain's report): where a manifest came from, and a name conflict.
 * Types only.
 */

/** How the manifest was obtained (`listed`: from an MCP server's `tools/list`). */
export type ManifestSource = 'cache' | 'extracted' | 'listed';

/** One name defined by more than one plugin. */
export interface ToolConflict {
  name: string;
  winner: string;
  losers: string[];
  /** why the winner won */
  rule: 'config order' | 'prefer';
  /**
   * the losers' own names where they differ from `name` only in case or invisible characters (`READ_FILE` beside
   * `read_file`)
   */
  spellings?: string[];
}
