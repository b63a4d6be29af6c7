import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'shared/**/*.test.ts', 'tests/**/*.test.ts'],
    // Real child processes and file systems: give slow CI machines room, never retry.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a browser or a server under load: a second is too little on two busy
    // cores (a verification round trip once took longer); a broken feature still fails, later.
    expect: { poll: { timeout: 15_000, interval: 100 } },
    pool: 'forks',
  },
});
