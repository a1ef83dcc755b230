#!/usr/bin/env node
// The CLI lives in the compiled build: the published package ships it, and in a
// clone `npm start`, `npm test` and `npm run build` make it.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/core/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'toolshed: the build is missing (dist/). In a clone of the repository, run npm run build first.\n',
  );
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
