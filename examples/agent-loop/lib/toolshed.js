// The toolshed host this example drives, imported from the repo's build.
//
// Why a relative path and not `import ... from 'toolshed'`: npm workspaces link
// only the workspace packages (plugins/* and examples/*) into node_modules; the
// root package (toolshed itself) is not installed there, so the bare name does
// not resolve from this folder. In a project of your own, `npm install toolshed`
// and import from 'toolshed' instead. `npm run build` at the repo root makes dist/.
export { createToolHost } from '../../../dist/core/index.js';
// Internal helper (not part of toolshed's public entry yet): undoes the nulls
// OpenAI strict mode makes a model send for optional properties.
export { dropStrictNulls } from '../../../dist/core/call/strict-arguments.js';
