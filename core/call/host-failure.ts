/** The outcome of a call that threw inside the host, where no tool's failure explains it. */
import { ToolshedError } from '../../boundary/errors.js';
import { failure, type CallOutcome } from '../../boundary/outcome.js';

/**
 * The outcome of a call that threw inside the host (a config toolset error after a reload, say): dispatch never throws
 * to its caller.
 */
export function hostFailure(name: string, error: unknown): CallOutcome {
  const code = error instanceof ToolshedError ? error.code : 'TOOL_CRASHED';
  return failure('TOOL_CRASHED', `toolshed could not run ${name}: ${code}: ${(error as Error).message}`);
}
