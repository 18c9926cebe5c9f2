import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One test file per core. Vitest's default leaves a core free (one worker on a 2-core CI
    // machine); most files wait on child processes, Redis or disk, so the suite takes about
    // half the wall time with every core busy.
    maxWorkers: availableParallelism(),
  },
});
