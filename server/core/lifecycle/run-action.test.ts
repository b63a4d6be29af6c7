import { describe, expect, it } from 'vitest';
import { deny, type Decision } from '../../../shared/decision.js';
import type { AuditBody } from '../audit/record.js';
import type { Evaluation } from '../decide/decide.js';
import type { Executed, PreparedAction } from './execution.js';
import { runAction, type LifecycleDeps } from './run-action.js';

const allow: Decision = { decision: 'allow', tier: 'T1', approver: null, code: null, rule: 'r', reasons: [] };

function deps(evaluation: Partial<Evaluation>, options: { failAudit?: (body: AuditBody) => boolean; result?: Executed } = {}) {
  const log: string[] = [];
  const d: LifecycleDeps = {
    evaluate: () => ({ decision: allow, tool: 'fs.write', args: { path: '/p/a', content: 'x' }, paths: [], ...evaluation }),
    audit: (body) => {
      if (options.failAudit?.(body) === true) return Promise.reject(new Error('disk full'));
      log.push(`audit:${body.kind}`);
      return Promise.resolve();
    },
    execute: (action: PreparedAction) => {
      log.push(`execute:${action.tool}`);
      return Promise.resolve(options.result ?? { result: { ok: true, undo_id: 'un_x', secrets_read: ['tok'] } });
    },
    now: () => new Date('2026-11-29T00:00:00Z'),
    newActionId: () => 'ac_1',
    digest: () => 'sha256:0',
    preview: () => '{}',
    actor: 'test',
  };
  return { d, log };
}

describe('runAction (the lifecycle)', () => {
  it('says where every action stands: ran, pending (not an error), or not run', async () => {
    expect(await runAction({}, deps({}).d)).toMatchObject({ status: 'ran', executed: true });
    const needs: Decision = { ...allow, decision: 'needs-approval', tier: 'T2', approver: 'any-device' };
    const waiting = { ...deps({ decision: needs }).d, obtainApproval: () => Promise.resolve({ kind: 'pending' as const, approvalId: 'ap_1' }) };
    const pending = await runAction({}, waiting);
    expect(pending).toMatchObject({ status: 'pending', executed: false, approval_id: 'ap_1' });
    expect(pending.error).toBeUndefined();
    expect(await runAction({}, deps({ decision: deny('PATH_OUTSIDE_SCOPE', 'scope', ['out']) }).d)).toMatchObject({ status: 'not-run', executed: false });
    const refused = { ...deps({ decision: needs }).d, obtainApproval: () => Promise.resolve({ kind: 'refused' as const, code: 'APPROVAL_DENIED' as const, message: 'no' }) };
    expect(await runAction({}, refused)).toMatchObject({ status: 'not-run', error: { code: 'APPROVAL_DENIED' } });
  });

  it('answers a run only once its terminal record is durable: an outage is waited out, a record that cannot be written is reported', async () => {
    let outage = true;
    const { d, log } = deps({});
    const waiting: LifecycleDeps = {
      ...d,
      audit: (body) => (body.kind === 'succeeded' && outage ? Promise.reject(Object.assign(new Error('ENOSPC'), { retryable: true })) : d.audit(body)),
      auditWritable: () => {
        outage = false;
        log.push('writable again');
        return Promise.resolve(true);
      },
    };
    expect(await runAction({}, waiting)).toMatchObject({ executed: true, undo_id: 'un_x' });
    expect(log.slice(0, 3)).toEqual(['audit:decision', 'audit:dispatched', 'execute:fs.write']);
    expect(log.indexOf('writable again')).toBeLessThan(log.indexOf('audit:succeeded'));
    // Not an outage (say, no canonical JSON form): retrying cannot help, so no wait and no loop.
    let asked = 0;
    const never: LifecycleDeps = {
      ...d,
      audit: (body) => (body.kind === 'succeeded' ? Promise.reject(new Error('no canonical form')) : d.audit(body)),
      auditWritable: () => {
        asked += 1;
        return Promise.resolve(true);
      },
    };
    expect(await runAction({}, never)).toMatchObject({ executed: true, error: { code: 'AUDIT_WRITE_FAILED' } });
    expect(asked).toBe(0);
  });

  it('audits the decision, then dispatched durably, then executes, then the terminal state', async () => {
    const { d, log } = deps({});
    const result = await runAction({}, d);
    expect(result).toMatchObject({ executed: true, undo_id: 'un_x', action_id: 'ac_1' });
    expect(log).toEqual(['audit:decision', 'audit:dispatched', 'execute:fs.write', 'audit:succeeded', 'audit:secret.access']);
  });

  it('runs nothing when dispatched cannot be written (fail closed)', async () => {
    const { d, log } = deps({}, { failAudit: (b) => b.kind === 'dispatched' });
    const result = await runAction({}, d);
    expect(result).toMatchObject({ executed: false, error: { code: 'AUDIT_WRITE_FAILED' } });
    expect(log).not.toContain('execute:fs.write');
  });

  it('runs nothing when even the decision cannot be recorded', async () => {
    const { d, log } = deps({}, { failAudit: () => true });
    expect((await runAction({}, d)).executed).toBe(false);
    expect(log).toEqual([]);
  });

  it('refuses needs-approval without asking anyone, and denies what is denied', async () => {
    const t2: Decision = { decision: 'needs-approval', tier: 'T2', approver: 'any-device', code: null, rule: 'r', reasons: [] };
    const { d, log } = deps({ decision: t2 });
    expect(await runAction({}, d)).toMatchObject({ executed: false, error: { code: 'APPROVAL_REQUIRED' } });
    const denied = deps({ decision: deny('PATH_OUTSIDE_SCOPE', 'scopes', ['x']) });
    expect(await runAction({}, denied.d)).toMatchObject({ executed: false, decision: 'deny' });
    expect([...log, ...denied.log]).toEqual(['audit:decision', 'audit:decision']);
  });

  it('says so when it ran but the terminal record could not be written', async () => {
    const { d } = deps({}, { failAudit: (b) => b.kind === 'succeeded' });
    expect(await runAction({}, d)).toMatchObject({ executed: true, error: { code: 'AUDIT_WRITE_FAILED' } });
  });

  it('audits a job directory that could not be removed', async () => {
    const { d, log } = deps({}, { result: { result: { ok: true }, cleanupError: 'busy' } });
    await runAction({}, d);
    expect(log).toContain('audit:job.cleanup');
  });
});
