/**
 * The Piscina worker entry inside a process-tier child: the hardening of
 * process-harden.ts first (ESM evaluates imports in order), then the same
 * task runner as the thread tier.
 */
import './process-harden.js';

export { default } from './worker.js';
