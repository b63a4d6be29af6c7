import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { CredentialStore } from '../adapters/credentials-store.js';
import { ensurePrivateDir } from '../adapters/files.js';
import type { GateState } from '../app/gate-policy.js';

/**
 * `oracle agents add NAME | list | revoke ID` and `oracle devices list | revoke ID` (SPEC §11, §12).
 * An agent's token is printed once and stored only as an Argon2id hash; its ceiling is the
 * policy's `principals.agents.NAME`. A running gate sees changes at once.
 */
export async function runCredentials(gate: GateState, kind: 'agents' | 'devices', words: readonly string[], out: Writable): Promise<number> {
  ensurePrivateDir(join(gate.home, 'data'));
  const store = CredentialStore.open(join(gate.home, 'data'));
  const [verb, arg] = words;
  const tokenKind = kind === 'agents' ? 'ag' : 'dev';
  if (verb === 'list' || verb === undefined) {
    for (const r of store.list(tokenKind)) out.write(`${r.id}  ${r.name}${r.profile === undefined ? '' : `  (${r.profile})`}  ${r.created_at}${r.revoked_at === null ? '' : `  revoked ${r.revoked_at}`}\n`);
    return 0;
  }
  if (verb === 'revoke' && arg !== undefined) {
    const done = store.revoke(arg);
    out.write(done ? `revoked ${arg}\n` : `no active credential ${arg}\n`);
    return done ? 0 : 1;
  }
  if (kind === 'agents' && verb === 'add' && arg !== undefined) {
    const agent = gate.context.gate.policy.agents.get(arg);
    if (agent === undefined) {
      out.write(`oracle: \`${arg}\` is not in principals.agents of ${gate.policyFile}; add it there first (its capabilities are its ceiling)\n`);
      return 2;
    }
    const { id, token } = await store.issue('ag', arg);
    out.write(`agent ${arg} (${id}), capabilities: ${[...agent.capabilities].join(', ')}\n`);
    out.write(`token (shown once; store it where the agent reads it):\n${token}\n`);
    return 0;
  }
  out.write(`usage: oracle ${kind === 'agents' ? 'agents add NAME | list | revoke ID' : 'devices list | revoke ID'}\n`);
  return 2;
}
