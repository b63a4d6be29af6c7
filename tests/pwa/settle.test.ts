import { afterEach, describe, expect, it, vi } from 'vitest';
import { movedUnderPointer, Settle, SETTLE_MS } from '../../pwa/src/ui/settle.js';

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
    expect(movedUnderPointer(['a', 'b', 'c'], ['b', 'c'])).toEqual(['b', 'c']);
    expect(movedUnderPointer(['a', 'b'], ['a', 'b', 'c'])).toEqual([]);
    // An agent withdrawing its newest card and asking again: only its new card takes that place.
    expect(movedUnderPointer(['a', 'b'], ['a', 'c'])).toEqual(['c']);
    expect(movedUnderPointer([], ['a'])).toEqual([]);
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
