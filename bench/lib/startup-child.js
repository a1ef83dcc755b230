// Child process of the startup scenario: creates a host from the config given
// as JSON in argv[2] (cwd argv[3]), prints its RSS, closes it and exits on its
// own. With --report it also prints what explain() says about the start
// (kept out of the timed runs: explain sorts every tool).
import { createToolHost } from '../../dist/core/index.js';

const host = await createToolHost({ cwd: process.argv[3], config: JSON.parse(process.argv[2]) });
const out = { rss: process.memoryUsage().rss };
if (process.argv.includes('--report')) {
  const report = host.explain();
  Object.assign(out, {
    startupMs: report.startupMs,
    loaded: report.plugins.filter((p) => p.status === 'loaded').length,
    fromCache: report.plugins.filter((p) => p.manifestSource === 'cache').length,
    poolsStarted: report.plugins.filter((p) => p.pool?.started).length,
    ownPools: report.plugins.filter((p) => p.pool?.kind === 'own').length,
    extractionPoolStarted: report.extractionPoolStarted,
  });
}
await host.close();
process.stdout.write(JSON.stringify(out));
