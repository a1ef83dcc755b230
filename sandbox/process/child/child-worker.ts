/**
 * The Piscina worker entry inside a process-tier child: the hardening of
 * harden.ts first (ESM evaluates imports in order), then the same
 * task runner as the thread tier.
 */
import './harden.js';

export { default } from '../../worker/worker-entry.js';
