import { describe, expect, it } from 'vitest';
import { interruptedActions } from './interrupted.js';

const r = (kind: string, id?: string) => ({ kind, ...(id === undefined ? {} : { action_id: id }) });

describe('actions a crash cut off', () => {
  it('names every dispatched action of the last run without a terminal record, oldest first', () => {
    const log = [r('policy.load'), r('decision', 'a'), r('dispatched', 'a'), r('succeeded', 'a'), r('dispatched', 'b'), r('dispatched', 'c'), r('failed', 'c'), r('dispatched', 'd')];
    expect(interruptedActions(log.toReversed())).toEqual(['b', 'd']);
  });

  it('reads only the last run: what an earlier run left is not this start’s to mark', () => {
    const log = [r('policy.load'), r('dispatched', 'old'), r('policy.load'), r('dispatched', 'new')];
    expect(interruptedActions(log.toReversed())).toEqual(['new']);
  });

  it('does not mark twice', () => {
    const log = [r('policy.load'), r('dispatched', 'a'), r('interrupted', 'a')];
    expect(interruptedActions(log.toReversed())).toEqual([]);
  });
});
