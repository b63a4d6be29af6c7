import type { AuditBody } from '../core/audit/record.js';
import { parseBearer } from '../core/credentials/token.js';
import type { CredentialStore } from '../adapters/credentials-store.js';
import type { Caller, CallerVerifier } from '../http/caller.js';
import type { DesktopSessions } from '../http/desktop-sessions.js';

/** Who is calling the gate: the desktop (a session cookie or its local token, from this machine only), an agent or a device. */
export function gateCallers(credentials: CredentialStore, desktop: DesktopSessions): CallerVerifier {
  return {
    async verify(request): Promise<Caller | undefined> {
      if (request.cookie !== undefined && request.loopback && desktop.valid(request.cookie)) return { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'cookie' };
      if (request.authorization?.startsWith('Desktop ') === true) {
        return request.loopback && desktop.validLocal(request.authorization.slice('Desktop '.length)) ? { kind: 'desktop', id: 'desktop', name: 'desktop', via: 'token' } : undefined;
      }
      const token = parseBearer(request.authorization);
      if (token === undefined) return undefined;
      const record = await credentials.verify(token, request.address);
      if (record === undefined) return undefined;
      return record.kind === 'ag' ? { kind: 'agent', id: record.id, name: record.name } : { kind: 'device', id: record.id, name: record.name, profile: record.profile ?? 'phone' };
    },
  };
}

/**
 * Failed credential checks, audited in aggregate once a minute (issue 14: no log flood). The
 * answer stops the reports, after one last one for what is left.
 */
export function reportCredentialFailures(credentials: CredentialStore, audit: (body: AuditBody) => Promise<unknown>): () => void {
  const report = (): void => {
    const counts = credentials.takeFailures();
    if (counts.size === 0) return;
    void audit({ kind: 'auth.failures', ts: new Date().toISOString(), actor: 'oracle', outcome: 'refused', detail: { by_credential: Object.fromEntries(counts) } }).catch(() => undefined);
  };
  const timer = setInterval(report, 60_000);
  timer.unref();
  return () => {
    clearInterval(timer);
    report();
  };
}
