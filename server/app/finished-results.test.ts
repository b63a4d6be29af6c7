import { describe, expect, it } from 'vitest';
import type { RunResult } from '../core/lifecycle/run-action.js';
import { FinishedResults } from './finished-results.js';

const result = (n: number): RunResult => ({ action_id: `act_${String(n)}` }) as unknown as RunResult;
const at = (minutes: number): Date => new Date(Date.UTC(2026, 11, 4, 12, minutes));

describe('FinishedResults', () => {
  it('gives a result back to its own agent only, for ten minutes', () => {
    const kept = new FinishedResults();
    kept.keep('ap_1', 'mcp', result(1), at(0));
    expect(kept.get('ap_1', 'mcp', at(9))).toEqual(result(1));
    expect(kept.get('ap_1', 'other', at(9))).toBeUndefined();
    expect(kept.get('ap_1', undefined, at(9))).toBeUndefined();
    expect(kept.get('ap_1', 'mcp', at(10))).toBeUndefined();
  });
  it('keeps the 32 newest', () => {
    const kept = new FinishedResults();
    for (let i = 0; i < 40; i++) kept.keep(`ap_${String(i)}`, 'mcp', result(i), at(0));
    expect(kept.get('ap_7', 'mcp', at(1))).toBeUndefined();
    expect(kept.get('ap_8', 'mcp', at(1))).toEqual(result(8));
    expect(kept.get('ap_39', 'mcp', at(1))).toEqual(result(39));
  });
});
