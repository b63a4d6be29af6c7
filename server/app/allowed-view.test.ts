import { describe, expect, it } from 'vitest';
import type { SecretStore } from '../adapters/secrets/index.js';
import { loadPolicy } from '../core/policy/load.js';
import { LINUX } from '../core/paths/flavor.js';
import { allowedView } from './allowed-view.js';

const policy = (() => {
  const r = loadPolicy(`principals:\n  agents:\n    fetcher: { capabilities: [net.egress, secret.read] }\n    reader: { capabilities: [fs.read] }\n`, { flavor: LINUX, userHome: '/home/u' });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.policy;
})();

/** A store that counts how often its names were read, or fails reading them. */
function store(names: () => Promise<string[]>): SecretStore & { reads: number } {
  const s = {
    kind: 'file' as const,
    description: 'test',
    reads: 0,
    get: () => Promise.resolve(undefined),
    set: () => Promise.resolve(),
    delete: () => Promise.resolve(false),
    names: () => {
      s.reads += 1;
      return names();
    },
  };
  return s;
}

describe('allowedView', () => {
  it('reads the names only for an agent that may read secrets', async () => {
    const kept = store(() => Promise.resolve(['npm', 'github']));
    expect((await allowedView(policy, kept, 'reader')).secrets).toEqual([]);
    expect(kept.reads).toBe(0);
    expect((await allowedView(policy, kept, 'fetcher')).secrets).toEqual(['github', 'npm']);
    expect(kept.reads).toBe(1);
  });

  it('lists none when the store cannot be listed, and still answers', async () => {
    const broken = store(() => Promise.reject(new Error('keyring locked')));
    expect(await allowedView(policy, broken, 'fetcher')).toMatchObject({ agent: 'fetcher', capabilities: ['net.egress', 'secret.read'], secrets: [] });
    expect((await allowedView(policy, undefined, 'fetcher')).secrets).toEqual([]);
  });
});
