import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'shared/**/*.test.ts', 'tests/**/*.test.ts'],
    // Real child processes and file systems: give slow CI machines room, never retry.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
