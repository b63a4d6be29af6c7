import { spawn } from 'node:child_process';
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
});
