import { describe, expect, it } from 'vitest';
import { VerifyBudget } from './verify-budget.js';

const spec = { perId: { burst: 3, refillMs: 10_000 }, perAddress: { burst: 5, refillMs: 1_000 }, negativeTtlMs: 60_000, maxEntries: 100 };

describe('the budget of failed credential checks', () => {
  it('gives each id its burst, then one per refill period', () => {
    let t = 0;
    const budget = new VerifyBudget(spec, () => t);
    const took = Array.from({ length: 10 }, (_, i) => budget.take('ag_1', `10.0.0.${String(i)}`));
    expect(took.filter(Boolean)).toHaveLength(3);
    t += 10_000;
    expect(budget.take('ag_1', '10.0.0.99')).toBe(true);
    expect(budget.take('ag_1', '10.0.0.99')).toBe(false);
    // Another id is untouched.
    expect(budget.take('ag_2', '10.0.0.98')).toBe(true);
  });

  it('limits an address across ids, and spends neither bucket when one is empty', () => {
    const t = 0;
    const budget = new VerifyBudget(spec, () => t);
    const took = Array.from({ length: 20 }, (_, i) => budget.take(`ag_${String(i)}`, '10.0.0.1'));
    expect(took.filter(Boolean)).toHaveLength(5);
    // ag_19's own bucket was not spent by the refusal.
    expect(budget.take('ag_19', '10.0.0.2')).toBe(true);
  });

  it('remembers a failed secret for the negative TTL only', () => {
    let t = 0;
    const budget = new VerifyBudget(spec, () => t);
    budget.rememberBad('ag_1', 'abc');
    expect(budget.knownBad('ag_1', 'abc')).toBe(true);
    expect(budget.knownBad('ag_2', 'abc')).toBe(false);
    t += 60_001;
    expect(budget.knownBad('ag_1', 'abc')).toBe(false);
  });

  it('stays bounded', () => {
    const t = 0;
    const budget = new VerifyBudget({ ...spec, maxEntries: 10 }, () => t);
    for (let i = 0; i < 1000; i++) budget.rememberBad('ag_1', String(i));
    expect(budget.knownBad('ag_1', '999')).toBe(true);
    expect(budget.knownBad('ag_1', '0')).toBe(false);
  });
});
