// Raw Piscina baseline: the same handlers, run as named task functions.
export { echo, spin } from '../lib/handlers.js';
