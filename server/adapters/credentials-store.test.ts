import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBearer } from '../core/credentials/token.js';
import { tempTree, type TempTree } from '../../tests/fixtures/temp-tree.js';
import { CredentialStore } from './credentials-store.js';

const trees: TempTree[] = [];
afterEach(() => {
  for (const t of trees.splice(0)) t.dispose();
});

function freshDir(): string {
  const tree = tempTree('oracle-cred-');
  trees.push(tree);
  return tree.root;
}

describe('CredentialStore and another process writing the same file', () => {
  it('sees a revoke from another process on the next turn of the event loop', async () => {
    const dir = freshDir();
    const gate = CredentialStore.open(dir);
    const { id, token } = await gate.issue('ag', 'bench');
    const parsed = parseBearer(`Bearer ${token}`);
    if (parsed === undefined) throw new Error('token did not parse');
    expect(await gate.verify(parsed)).toMatchObject({ id });
    // `oracle agents revoke` in another process: its own store over the same file.
    await nextTurn();
    expect(CredentialStore.open(dir).revoke(id)).toBe(true);
    await nextTurn();
    expect(await gate.verify(parsed)).toBeUndefined();
    expect(gate.active(id)).toBe(false);
  });

  it('never writes back an older view over another process’s change made in the same turn', async () => {
    const dir = freshDir();
    const gate = CredentialStore.open(dir);
    const first = await gate.issue('ag', 'one');
    await nextTurn();
    const other = CredentialStore.open(dir);
    expect(gate.active(first.id)).toBe(true); // looked at the file in this turn
    expect(other.revoke(first.id)).toBe(true);
    await gate.issue('ag', 'two'); // a write: it reads the file again first
    expect(CredentialStore.open(dir).get(first.id)?.revoked_at).not.toBeNull();
  });
});
