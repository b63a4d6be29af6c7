import { describe, expect, it } from 'vitest';
import { watchGate } from './gate-watch.js';
import { remoteGate } from '../mcp/gate.js';

describe('watchGate', () => {
  it('gives up after two unanswered looks in a row, and only then', async () => {
    const looks = [true, false, true, false, false];
    const watch = watchGate(() => Promise.resolve(looks.shift() ?? false), 5);
    await new Promise<void>((resolve) => { watch.signal.addEventListener('abort', () => { resolve(); }, { once: true }); });
    expect(looks).toEqual([]);
    expect(watch.reason()).toContain('the gate stopped answering');
  });

  it('takes a look that throws for a miss, and a stopped watch never fires', async () => {
    const failing = watchGate(() => Promise.reject(new Error('no CA')), 5);
    await new Promise<void>((resolve) => { failing.signal.addEventListener('abort', () => { resolve(); }, { once: true }); });
    expect(failing.reason()).toBeDefined();
    const stopped = watchGate(() => Promise.resolve(false), 5);
    stopped.stop();
    await new Promise((r) => setTimeout(r, 40));
    expect(stopped.signal.aborted).toBe(false);
  });
});

describe('remoteGate with a watch', () => {
  it('ends a wait the gate never answers with GATE_UNREACHABLE and the watch’s reason', async () => {
    const hanging = (call: { signal?: AbortSignal }) =>
      new Promise<{ status: number; body: Record<string, unknown> }>((_resolve, reject) => {
        call.signal?.addEventListener('abort', () => { reject(new Error('withdrawn')); }, { once: true });
      });
    const gate = remoteGate(hanging, undefined, () => watchGate(() => Promise.resolve(false), 5));
    await expect(gate.submit({ tool: 'fs.read', args: { path: '/p/a' } }, 60_000, 'mcp')).rejects.toMatchObject({ code: 'GATE_UNREACHABLE', message: expect.stringContaining('the gate stopped answering') as unknown });
    await expect(gate.continueAction('ap_1', 60_000, 'mcp')).rejects.toMatchObject({ code: 'GATE_UNREACHABLE' });
  });
});
