import { spawn } from 'node:child_process';
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../server/adapters/credentials-store.js';
import { built } from '../fixtures/built.js';
import { tempTree } from '../fixtures/temp-tree.js';

/**
 * The gate and the CLI both change credentials.json. Red team, session 32: while a gate wrote a
 * device's request counter on every signed request, `oracle devices revoke` printed "revoked" and
 * the gate's next write put the unrevoked record back (1 in 12 tries), so the phone kept its
 * rights. Here another process writes counters as fast as it can while this one revokes twenty
 * devices; every revoke must still be in the file afterwards.
 */
describe('credentials.json changed by two processes at once', () => {
  const tree = tempTree('oracle-cred-race-');
  afterAll(() => {
    tree.dispose();
  });

  it('loses no revoke to a concurrent counter write', async () => {
    const data = tree.dir('data');
    const store = CredentialStore.open(data);
    const busy = await store.issue('dev', 'busy phone', { profile: 'phone' });
    const victims = await Promise.all(Array.from({ length: 20 }, (_, i) => store.issue('dev', `phone ${String(i)}`, { profile: 'phone' })));
    const writer = `
      const { CredentialStore } = await import(${JSON.stringify(pathToFileURL(built('server', 'adapters', 'credentials-store.js')).href)});
      const store = CredentialStore.open(${JSON.stringify(data)});
      const until = Date.now() + 4000;
      let n = 1;
      process.stdout.write('ready\\n');
      // As a gate does, one signed request after another, each its own turn of the event loop.
      while (Date.now() < until) {
        store.advanceCounter(${JSON.stringify(busy.id)}, n++);
        await new Promise((r) => setImmediate(r));
      }
      process.stdout.write(String(n) + '\\n');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', writer], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('ready')) resolve();
      }),
    );
    for (const victim of victims) {
      expect(store.revoke(victim.id)).toBe(true);
      await new Promise((r) => setTimeout(r, 40));
    }
    await new Promise((resolve) => child.on('close', resolve));
    const writes = Number(out.trim().split('\n').at(-1));
    expect(writes, 'the other process kept writing throughout').toBeGreaterThan(50);
    const fresh = CredentialStore.open(data);
    for (const victim of victims) expect(fresh.get(victim.id)?.revoked_at, victim.id).not.toBeNull();
    expect(fresh.get(busy.id)?.counter).toBe(writes - 1);
  }, 30_000);

  it('never lets a lock another process plants stall a device: the counter is checked and kept in memory, and written later', async () => {
    const data = tree.dir('planted');
    const store = CredentialStore.open(data);
    const phone = await store.issue('dev', 'phone', { profile: 'phone' });
    const lock = join(data, 'credentials.json.lock');
    // pid 1 is alive and not ours to signal: it reads as a holder that never lets go.
    writeFileSync(lock, '1 planted\n');
    const keepFresh = setInterval(() => {
      utimesSync(lock, new Date(), new Date());
    }, 200);
    try {
      expect(store.advanceCounter(phone.id, 5)).toBe(true);
      expect(store.advanceCounter(phone.id, 5), 'a replay is refused from memory').toBe(false);
      expect(store.advanceCounter(phone.id, 6)).toBe(true);
    } finally {
      clearInterval(keepFresh);
    }
    // Left alone, the planted lock goes stale and is taken over; the kept counter reaches the file.
    await new Promise((r) => setTimeout(r, 2100));
    expect(store.advanceCounter(phone.id, 7)).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(CredentialStore.open(data).get(phone.id)?.counter).toBe(7);
  }, 20_000);
});
