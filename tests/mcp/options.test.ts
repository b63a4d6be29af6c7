import { describe, expect, it } from 'vitest';
import { MAX_WAIT_SECONDS, parseWaitMs } from '../../server/mcp/options.js';

/** `oracle mcp --wait SECONDS` (SPEC §12): a bounded, plain number of seconds or a usage error. */
describe('parseWaitMs', () => {
  it('defaults to not waiting and converts seconds', () => {
    expect(parseWaitMs(undefined)).toBe(0);
    expect(parseWaitMs('0')).toBe(0);
    expect(parseWaitMs('2.5')).toBe(2500);
    expect(parseWaitMs(String(MAX_WAIT_SECONDS))).toBe(MAX_WAIT_SECONDS * 1000);
  });

  it('refuses what is not a bounded number of seconds', () => {
    for (const bad of ['', '-1', '1e3', 'NaN', 'Infinity', '0x10', String(MAX_WAIT_SECONDS + 1), '5s']) expect(parseWaitMs(bad), bad).toBeUndefined();
  });
});
