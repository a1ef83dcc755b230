// An operator's config using the example third-party plugin.
// Run from the repo root: npx toolshed --config examples/toolshed.config.mjs
/** @type {import('toolshed').ToolshedConfig} */
export default {
  $schema: '../config.schema.json',
  plugins: [
    // A path, relative to this file. In your app, npm install toolshed-plugin-weather and name the package instead.
    { package: './weather-plugin', trust: 'untrusted', grant: { network: true, env: ['OPENWEATHER_API_KEY'] } },
  ],
  toolsets: {
    assistant: { description: 'What our assistant may use', includes: ['weather', 'file', 'todo'] },
  },
  enable: ['assistant'],
  disable: ['write_file'],
  checks: { ttlMs: 30000, graceMs: 60000, timeoutMs: 5000 },
  limits: { timeoutMs: 30000, maxResultChars: 50000, memoryMb: 256, maxQueue: 32 },
};
