import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CredentialStore } from '../server/adapters/credentials-store.js';
import { parseBearer } from '../server/core/credentials/token.js';
import { measure, type Figure } from './stats.js';

/**
 * Device auth cost (SPEC §14): a junk token must cost no Argon2 work, a steady-state verified
 * token microseconds; the first verification of a real token pays Argon2id once.
 */
export async function authBench(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'oracle-bench-auth-'));
  try {
    const store = CredentialStore.open(dir);
    const { token } = await store.issue('dev', 'bench phone', { profile: 'phone' });
    const valid = parseBearer(`Bearer ${token}`);
    const junkKnownShape = parseBearer(`Bearer oracle_dev_0123456789abcdef_${'A'.repeat(43)}`);
    if (valid === undefined || junkKnownShape === undefined) throw new Error('bench tokens did not parse');
    const first = await measure('auth: first verification of a real token (Argon2id)', 1, async () => {
      const fresh = CredentialStore.open(dir);
      await fresh.verify(valid);
    });
    return [
      await measure('auth: malformed bearer (refused by the parser)', 20_000, () => parseBearer('Bearer nonsense')),
      await measure('auth: well-formed junk token (unknown id, no hashing)', 20_000, () => store.verify(junkKnownShape)),
      await measure('auth: verified token, steady state (cached, constant-time)', 20_000, () => store.verify(valid)),
      first,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
