import type { OracleCode } from '../../shared/outcome-codes.js';
import { SECRET_STORE_CODES } from '../../shared/outcome-codes.js';
import type { SecretStore } from '../adapters/secrets/index.js';
import type { AuditBody } from '../core/audit/record.js';
import type { SecretChange, SecretsDesk } from '../http/routes/desktop.js';

/**
 * `oracle secrets` while the gate runs (one gate per home): the CLI asks the gate, which changes
 * the store it holds, so a new value is hidden from every output at once, and audits the change
 * by name in its own chain (a second process cannot write that log). Values are never returned.
 */
export function secretsDesk(store: SecretStore | undefined, reason: string, audit: (body: AuditBody) => Promise<unknown>): SecretsDesk {
  const unavailable = { code: 'io_failed' as OracleCode, message: `the gate has no secret store (${reason})` };
  const change = async (op: 'set' | 'delete', name: string, act: (s: SecretStore) => Promise<boolean>): Promise<SecretChange> => {
    if (store === undefined) return { ok: false, ...unavailable };
    const record = (outcome: string): Promise<unknown> => audit({ kind: 'secret.access', ts: new Date().toISOString(), actor: 'operator', outcome, detail: { names: [name] } });
    // Recorded before it happens: a change the log could not take is not made.
    try {
      await record(op);
    } catch (e) {
      return { ok: false, code: 'AUDIT_WRITE_FAILED', message: `the audit log did not take the change, so it was not made (${e instanceof Error ? e.message : 'unknown error'})` };
    }
    try {
      return { ok: true, existed: await act(store) };
    } catch (e) {
      await record(`${op}-failed`).catch(() => undefined);
      return { ok: false, ...failure(e) };
    }
  };
  return {
    names: async () => {
      if (store === undefined) return unavailable;
      try {
        return await store.names();
      } catch (e) {
        return failure(e);
      }
    },
    set: (name, value) =>
      change('set', name, async (s) => {
        const existed = (await s.get(name)) !== undefined;
        await s.set(name, value);
        return existed;
      }),
    delete: (name) => change('delete', name, (s) => s.delete(name)),
  };
}

/** The store's own code and words (it never puts a value in a message), else io_failed. */
function failure(e: unknown): { code: OracleCode; message: string } {
  const code = (e as { code?: unknown } | null)?.code;
  const known = SECRET_STORE_CODES.find((c) => c === code);
  return { code: known ?? 'io_failed', message: e instanceof Error ? e.message : 'the secret store failed' };
}
