import { afterEach, describe, expect, it, vi } from 'vitest';
import { Places, Settle, SETTLE_MS } from '../../pwa/src/ui/settle.js';

/**
 * Which cards wait before they can be answered (pwa/src/ui/settle.ts): those that took a place
 * another card held, each for SETTLE_MS; never a card that stayed where it was, however much an
 * agent churns its own cards below it.
 */
describe('settling cards', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds the cards that moved to where another one was, and no other', () => {
    const seen = (lists: readonly (readonly string[])[], gap = 0): string[][] => {
      const places = new Places();
      return lists.map((ids, i) => places.next(ids, i * gap));
    };
    expect(seen([['a', 'b', 'c'], ['b', 'c']]).at(-1)).toEqual(['b', 'c']);
    expect(seen([['a', 'b'], ['a', 'b', 'c']]).at(-1)).toEqual([]);
    // An agent withdrawing its newest card and asking again: only its new card takes that place,
    // also when the two arrive in two refreshes, and not once the place has been empty a while.
    expect(seen([['a', 'b'], ['a', 'c']]).at(-1)).toEqual(['c']);
    expect(seen([['a', 'b'], ['a'], ['a', 'c']], 100).at(-1)).toEqual(['c']);
    expect(seen([['a', 'b'], ['a'], ['a', 'c']], SETTLE_MS).at(-1)).toEqual([]);
    expect(seen([[], ['a']]).at(-1)).toEqual([]);
  });

  it('holds each card for SETTLE_MS from its own move, and says when a hold ends', () => {
    vi.useFakeTimers();
    const changed = vi.fn();
    const settle = new Settle(changed);
    settle.start('a');
    vi.advanceTimersByTime(SETTLE_MS / 2);
    settle.start('b');
    expect([settle.holds('a'), settle.holds('b'), settle.holds('c')]).toEqual([true, true, false]);
    vi.advanceTimersByTime(SETTLE_MS / 2 + 2);
    expect([settle.holds('a'), settle.holds('b')]).toEqual([false, true]);
    expect(changed).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(SETTLE_MS);
    expect(settle.holds('b')).toBe(false);
    expect(changed).toHaveBeenCalledTimes(2);
  });
});
