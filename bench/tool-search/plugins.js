/** Writes the catalogue as real plugin packages (a few services per package), as a host would load them. */
import path from 'node:path';
import { SERVICES, schemaOf } from './catalogue/index.js';
import { writePlugin } from '../lib/plugins.js';

/** Services per generated package. */
export const PER_PLUGIN = 14;

/** Writes the packages under `root` and returns their folders. */
export function writeCatalogue(root) {
  const dirs = [];
  for (let i = 0; i < SERVICES.length; i += PER_PLUGIN) {
    const services = SERVICES.slice(i, i + PER_PLUGIN);
    const toolsets = Object.fromEntries(services.map((s) => [s.toolset, { description: s.description }]));
    const tools = services.flatMap((s) =>
      s.tools.map(([name, description, params]) => ({
        name,
        toolset: s.toolset,
        description,
        parameters: schemaOf(params),
      })),
    );
    const source = `const TOOLS = ${JSON.stringify(tools)};
export default {
  apiVersion: 1,
  toolsets: ${JSON.stringify(toolsets)},
  tools: TOOLS.map((tool) => ({ ...tool, handler: (args) => ({ tool: tool.name, args }) })),
};
`;
    const n = dirs.length;
    dirs.push(writePlugin(path.join(root, `catalogue-${n}`), `toolshed-plugin-bench-catalogue-${n}`, source));
  }
  return dirs;
}
