import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHECKPOINT_INTERVAL_MS, CheckpointStore } from './checkpoint-store.js';

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store on a fresh data directory; only setTimeout is faked, so the interval never passes by itself. */
function freshStore(): CheckpointStore {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const dir = mkdtempSync(join(tmpdir(), 'oracle-checkpoint-'));
  dirs.push(dir);
  return CheckpointStore.open(join(dir, 'data'));
}

const head = (seq: number) => ({ seq, hash: `sha256:${seq.toString(16).padStart(64, '0')}` });
const seqOnDisk = (store: CheckpointStore): number | undefined => {
  const state = store.read();
  return state.state === 'valid' ? state.checkpoint.seq : undefined;
};
const ticks = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('the checkpoint under load and at close', () => {
  it('writes the first head at once and the next one an interval later, not before', async () => {
    const store = freshStore();
    store.update(head(1));
    // The first write ends and the pause starts: one timer, the first head on disk.
    for (const end = Date.now() + 10_000; Date.now() < end && vi.getTimerCount() === 0; ) await ticks(1);
    expect(vi.getTimerCount()).toBe(1);
    expect(seqOnDisk(store)).toBe(1);
    // A head that comes in after that write (one agent's next action) waits out the interval.
    store.update(head(2));
    await ticks(20);
    expect(seqOnDisk(store)).toBe(1);
    await vi.advanceTimersByTimeAsync(CHECKPOINT_INTERVAL_MS);
    for (const end = Date.now() + 10_000; Date.now() < end && seqOnDisk(store) !== 2; ) await ticks(1);
    expect(seqOnDisk(store)).toBe(2);
  });

  it('does not pause while someone waits for it (a hook process closing its log exits at once)', async () => {
    const store = freshStore();
    store.update(head(1));
    store.update(head(2));
    // The interval's timer never fires here: idle() resolves only if no pause starts.
    await store.idle();
    expect(seqOnDisk(store)).toBe(2);
  });
});
