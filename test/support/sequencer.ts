/**
 * The order files start in. Vitest's own sequencer runs the projects one after another, e2e
 * first: the e2e files mostly wait (for the packed apps' install, a browser, haproxy), and
 * for two minutes one of the two workers sat idle. Files of the unit and integration
 * projects share a worker (isolate: false) only while the next file in the queue is of the
 * same project: a worker that finds another project's file next is stopped, and its
 * successor loads the host build again. So:
 *
 * 1. the tarball tests first: they wait for the apps that test/package/pack-setup.ts installs
 *    in the background, and the other workers run integration files meanwhile;
 * 2. then each project as one block (integration, integration-fresh, unit, e2e), so a shared
 *    worker is stopped at most once per block;
 * 3. within a block, longest first, and like vitest: a file that failed last time first, and
 *    a file with no recorded time first, by its size.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const FIRST = 'test/package/tarball.test.ts';
const BLOCKS = ['integration', 'integration-fresh', 'unit', 'e2e'];

export default class ByBlocks extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const file = (spec: TestSpecification) => relative(config.root, spec.moduleId).split('\\').join('/');
    const block = (spec: TestSpecification) => (file(spec) === FIRST ? -1 : BLOCKS.indexOf(spec.project.name));
    const key = (spec: TestSpecification) => `${spec.project.name}:${relative(config.root, spec.moduleId)}`;
    return [...files].sort((a, b) => {
      if (block(a) !== block(b)) return block(a) - block(b);
      const [resultA, resultB] = [cache.getFileTestResults(key(a)), cache.getFileTestResults(key(b))];
      if (resultA && resultB) {
        if (resultA.failed !== resultB.failed) return resultA.failed ? -1 : 1;
        return resultB.duration - resultA.duration;
      }
      if (resultA || resultB) return resultA ? 1 : -1;
      return (cache.getFileStats(key(b))?.size ?? 0) - (cache.getFileStats(key(a))?.size ?? 0);
    });
  }
}
