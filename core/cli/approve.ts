/**
 * Approval in `toolshed call`: a call that needs approval (config `approve`)
 * asks on the terminal, or is refused when there is none (stdin or stderr
 * not a TTY: a script, a pipe, CI) unless `--yes` approves it up front.
 */
import type { Approver } from '../call/approval.js';
import type { CliValues } from './context.js';
import type { CliIo } from './io.js';

const MAX_SHOWN = 500;

/** The approver for one `toolshed call`. */
export function cliApprover(values: Pick<CliValues, 'yes'>, io: Pick<CliIo, 'ask'>): Approver {
  if (values.yes) return () => true;
  const ask = io.ask;
  if (!ask)
    return () => ({
      approved: false,
      abstain: true,
      reason: 'it needs approval and there is no terminal to ask on; run it on a terminal to be asked, or pass --yes',
    });
  return async (request) => {
    const args = JSON.stringify(request.args);
    const shown = args.length > MAX_SHOWN ? `${args.slice(0, MAX_SHOWN)}…` : args;
    const why = request.reason === 'destructive' ? 'it may change or delete things' : 'the config asks for approval';
    const answer = await ask(
      `${request.tool} needs approval (${why}).\n  arguments: ${shown}\nRun it? [y/N] `,
      request.signal,
    );
    return /^\s*y(es)?\s*$/i.test(answer) ? true : { approved: false, reason: 'refused on the terminal' };
  };
}
