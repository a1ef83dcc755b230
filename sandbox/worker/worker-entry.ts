/**
 * The Piscina entry of every thread-tier pool. Before it imports anything of toolshed's
 * beyond the pin check, it compares the runtime files workers import with the pins the
 * host took when it loaded them (workerData, see pins.ts): a worker started after one of
 * them changed answers every task with PLUGIN_CHANGED instead of running the changed code.
 * Only then is worker-main.ts (the ports, the task runner) imported. Its static imports
 * stay node built-ins and pins.ts, which are all that run before the check.
 */
import { workerData } from 'node:worker_threads';
import { changedError, changedPin, type WorkerPins } from '../../boundary/pins.js';
import type { PoolReply, WorkerTask } from '../../boundary/protocol.js';

const pins = (workerData ?? {}) as WorkerPins;
const change = pins.runtime ? changedPin(pins.runtime, true) : undefined;

/** Every task's answer in a worker whose runtime changed: the failure, with the file. */
function refuse(_task: WorkerTask): Promise<PoolReply> {
  const error = changedError(change!);
  return Promise.resolve({
    ok: false,
    error: { name: 'Error', code: error.code, message: error.message, data: error.data },
  });
}

export default change ? refuse : (await import('./worker-main.js')).default;
