// Raw worker_threads baseline: one postMessage in, one postMessage out.
import { parentPort } from 'node:worker_threads';
import { echo } from '../lib/handlers.js';

parentPort.on('message', async (args) => parentPort.postMessage(await echo(args)));
