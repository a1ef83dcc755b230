#!/usr/bin/env node
// The CLI lives in the compiled build; `npm ci` builds it (prepare script).
import { main } from '../dist/core/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
