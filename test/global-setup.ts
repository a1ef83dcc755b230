/** Removes the suite's own state and cache folders (made in vitest.config.ts) when the run ends. */
import { rmSync } from 'node:fs';

export default function setup(): () => void {
  return () => {
    const home = process.env.TOOLSHED_TEST_HOME;
    if (home) rmSync(home, { recursive: true, force: true });
  };
}
