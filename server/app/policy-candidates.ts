import { randomBytes } from 'node:crypto';
import type { AuditBody } from '../core/audit/record.js';
import { diffPolicies } from '../core/policy/diff.js';
import type { LoadResult, PolicyIssue } from '../core/policy/load.js';
import type { PolicyCandidatesStore } from '../adapters/policy-candidates-store.js';
import type { PolicyCandidateView } from '../../shared/policy-candidate-view.js';
import type { OracleCode } from '../../shared/outcome-codes.js';
import type { EventHub } from './events.js';
import type { GateState } from './gate-policy.js';
import type { PolicyReload } from './runtime.js';

/** Large enough for any policy a person writes; a proposal is the whole file. */
const MAX_POLICY_BYTES = 256 * 1024;
const MAX_REASON = 2000;

export type Proposed = { readonly ok: true; readonly candidate: PolicyCandidateView } | { readonly ok: false; readonly code: OracleCode; readonly message: string; readonly errors?: readonly PolicyIssue[] };
export type Activated = { readonly ok: true; readonly reload: PolicyReload } | { readonly ok: false; readonly code: OracleCode; readonly message: string };

export interface PolicyCandidatesDeps {
  readonly store: PolicyCandidatesStore;
  readonly current: () => GateState;
  readonly parse: (text: string) => LoadResult;
  /** Writes the policy file the gate reads (atomically), for an activated candidate. */
  readonly write: (text: string) => void;
  readonly reload: (by: string) => Promise<PolicyReload>;
  readonly audit: (body: AuditBody) => Promise<unknown>;
  readonly events: EventHub;
  readonly now: () => Date;
}

/**
 * Agent-proposed policy changes (issue 16): a proposal is checked like a reload would check it
 * and kept as a candidate, with what it changes in policy terms; it never takes effect by itself.
 * Only the desktop activates one, naming the policy in force it saw (compare-and-set: refused
 * when the policy moved on), with the typed phrase when it widens what agents may do; then it is
 * written to the policy file and reloaded. Each step audited.
 */
export function policyCandidates(deps: PolicyCandidatesDeps) {
  const { store, current, parse } = deps;
  const viewOf = (c: ReturnType<PolicyCandidatesStore['list']>[number]): PolicyCandidateView => {
    const gate = current();
    const loaded = parse(c.text);
    const changes = loaded.ok ? diffPolicies(gate.context.gate.policy, loaded.policy) : [];
    const widens = changes.some((ch) => ch.widens);
    return { id: c.id, reason: c.reason, proposed_by: c.proposed_by, proposed_at: c.proposed_at, active_digest: gate.digest, stale: c.base_digest !== gate.digest, changes, phrase: widens ? `activate ${c.id.slice(-6)}` : null, text: c.text };
  };
  return {
    list: (): PolicyCandidateView[] => store.list().map(viewOf),

    async propose(agent: string, text: unknown, reason: unknown): Promise<Proposed> {
      if (typeof text !== 'string' || text.length === 0 || Buffer.byteLength(text) > MAX_POLICY_BYTES) return { ok: false, code: 'INPUT_INVALID', message: '`policy` is the whole proposed policy file as text (at most 256 KB)' };
      const loaded = parse(text);
      if (!loaded.ok) return { ok: false, code: 'INPUT_INVALID', message: `the proposed policy has ${String(loaded.errors.length)} error(s)`, errors: loaded.errors };
      const candidate = { id: `pc_${randomBytes(12).toString('hex')}`, text, reason: typeof reason === 'string' ? reason.slice(0, MAX_REASON) : '', proposed_by: agent, proposed_at: deps.now().toISOString(), base_digest: current().digest };
      store.add(candidate);
      const view = viewOf(candidate);
      await deps.audit({ kind: 'policy.candidate', ts: candidate.proposed_at, actor: agent, outcome: 'proposed', detail: { candidate: candidate.id, base: candidate.base_digest, changes: view.changes.length, widens: view.phrase !== null } });
      deps.events.publish('policy.candidate', { id: candidate.id }, 'desktop');
      return { ok: true, candidate: view };
    },

    async activate(id: string, activeDigest: unknown, phrase: unknown): Promise<Activated> {
      const candidate = store.get(id);
      if (candidate === undefined) return { ok: false, code: 'NOT_FOUND', message: `no policy candidate \`${id}\`` };
      const view = viewOf(candidate);
      // Compare-and-set: the person decided on a diff against one policy; if another is in force now, that diff is not what would happen.
      if (activeDigest !== view.active_digest) return { ok: false, code: 'POLICY_REFUSED', message: `the policy in force is ${String(view.active_digest)}, not ${String(activeDigest)}: it changed since this candidate was shown; look at its changes again` };
      if (view.phrase !== null && phrase !== view.phrase) return { ok: false, code: 'APPROVAL_PHRASE', message: `this candidate widens what agents may do: type \`${view.phrase}\` to activate it` };
      deps.write(candidate.text);
      const reload = await deps.reload('desktop');
      if (!reload.ok) return { ok: false, code: 'POLICY_REFUSED', message: `the policy file was written but the gate refused it: ${reload.errors[0]?.message ?? 'errors'}` };
      store.remove(id);
      await deps.audit({ kind: 'policy.candidate', ts: deps.now().toISOString(), actor: 'desktop', outcome: 'activated', detail: { candidate: id, proposed_by: candidate.proposed_by, from: reload.from, to: reload.to } });
      return { ok: true, reload };
    },

    async discard(id: string): Promise<boolean> {
      if (!store.remove(id)) return false;
      await deps.audit({ kind: 'policy.candidate', ts: deps.now().toISOString(), actor: 'desktop', outcome: 'discarded', detail: { candidate: id } });
      return true;
    },
  };
}

export type PolicyCandidates = ReturnType<typeof policyCandidates>;
