import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../audit/record.js';
import { consumeApproval, confirmationPhrase, decideApproval, expireDue, requestApproval, type Approver } from './approval.js';
import { argHash } from './arg-hash.js';
import { matchRemembered, rememberFrom } from './remember.js';

const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');
const t0 = new Date('2026-11-29T12:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const phone: Approver = { id: 'dev_phone', kind: 'device', approveT2: true, approveT3: false };
const desktop: Approver = { id: 'desktop', kind: 'desktop', approveT2: true, approveT3: true };
const args = { program: 'git', args: ['push', 'origin', 'main'], cwd: '/p/app', program_path: '/usr/bin/git', timeout: 60 };

function pending(tier: 'T2' | 'T3' = 'T2') {
  return requestApproval(
    { approvalId: 'ap_0123456789abcdef', traceId: 'ac_1', tool: 'exec.run', argHash: argHash(args, sha), tier, reason: 'push', preview: args, provenance: [], nonce: 'n1', session: 's1', project: '/p', agent: null },
    t0,
  );
}

describe('RFC 8785 canonical JSON (arg_hash input)', () => {
  it('matches the RFC §3.2.2 sample', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  });

  it('sorts properties by UTF-16 code units (RFC §3.2.3)', () => {
    const input = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    ) as Record<string, string>;
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('serialises numbers as ECMAScript does (RFC Appendix B)', () => {
    expect(canonicalJson([0, -0, 1e21, 1e-7, 9007199254740992, 0.000001, 123e-10, 1e23, 5e-324])).toBe('[0,0,1e+21,1e-7,9007199254740992,0.000001,1.23e-8,1e+23,5e-324]');
  });

  it('gives the same hash whatever the key order, and a different one for any change', () => {
    const reordered = { timeout: 60, program_path: '/usr/bin/git', cwd: '/p/app', args: ['push', 'origin', 'main'], program: 'git' };
    expect(argHash(reordered, sha)).toBe(argHash(args, sha));
    expect(argHash({ ...args, args: ['push', 'origin', 'main', '--force'] }, sha)).not.toBe(argHash(args, sha));
  });
});

describe('approvals', () => {
  const yes = (approver: Approver, extra: Partial<{ nonce: string; argHash: string; phrase: string }> = {}) => ({
    approver,
    verdict: 'approve' as const,
    nonce: 'n1',
    argHash: argHash(args, sha),
    ...extra,
  });

  it('approves T2 from a phone, once: a replay is refused', () => {
    const approved = decideApproval(pending(), yes(phone), at(1000));
    if (!approved.ok) throw new Error(approved.reason);
    expect(approved.approval).toMatchObject({ state: 'approved', device: 'dev_phone' });
    const used = consumeApproval(approved.approval, argHash(args, sha), at(2000));
    if (!used.ok) throw new Error(used.reason);
    expect(consumeApproval(used.approval, argHash(args, sha), at(3000))).toMatchObject({ ok: false, code: 'APPROVAL_REPLAY' });
  });

  it('refuses mutated arguments after approval', () => {
    const approved = decideApproval(pending(), yes(phone), at(1000));
    if (!approved.ok) throw new Error(approved.reason);
    const mutated = argHash({ ...args, args: ['push', '--force'] }, sha);
    expect(consumeApproval(approved.approval, mutated, at(2000))).toMatchObject({ ok: false, code: 'APPROVAL_ARGS_CHANGED' });
    expect(decideApproval(pending(), yes(phone, { argHash: mutated }), at(1000))).toMatchObject({ ok: false, code: 'APPROVAL_ARGS_CHANGED' });
  });

  it('expires after 5 minutes by default, and expiry means deny', () => {
    expect(expireDue(pending(), at(299_999)).state).toBe('pending');
    expect(expireDue(pending(), at(300_000)).state).toBe('expired');
    const late = decideApproval(pending(), yes(phone), at(300_001));
    expect(late.ok && late.approval.state).toBe('expired');
    const approved = decideApproval(pending(), yes(phone), at(1000));
    if (!approved.ok) throw new Error(approved.reason);
    expect(consumeApproval(approved.approval, argHash(args, sha), at(300_001))).toMatchObject({ ok: false, code: 'APPROVAL_EXPIRED' });
  });

  it('refuses T3 from a phone profile; the desktop needs the typed phrase', () => {
    const t3 = pending('T3');
    expect(decideApproval(t3, yes(phone), at(1000))).toMatchObject({ ok: false, code: 'APPROVAL_PROFILE' });
    expect(decideApproval(t3, yes({ ...phone, approveT3: true }), at(1000))).toMatchObject({ ok: false, code: 'APPROVAL_PROFILE' });
    expect(decideApproval(t3, yes(desktop), at(1000))).toMatchObject({ ok: false, code: 'APPROVAL_PHRASE' });
    expect(decideApproval(t3, yes(desktop, { phrase: confirmationPhrase(t3) }), at(1000))).toMatchObject({ ok: true, approval: { state: 'approved' } });
  });

  it('checks the nonce of the card, and lets a phone deny with a message', () => {
    expect(decideApproval(pending(), yes(phone, { nonce: 'other' }), at(1000))).toMatchObject({ ok: false, code: 'APPROVAL_NONCE' });
    const no = decideApproval(pending('T3'), { ...yes(phone), verdict: 'deny', message: 'not on main' }, at(1000));
    expect(no).toMatchObject({ ok: true, approval: { state: 'denied', message: 'not on main' } });
  });

  it('remembers only approved T2 for one session and project, until its expiry', () => {
    const approved = decideApproval(pending(), yes(phone), at(1000));
    if (!approved.ok) throw new Error(approved.reason);
    const made = rememberFrom(approved.approval, { id: 'rr_1', ttlMs: 60_000, now: at(1000) });
    if (!made.ok) throw new Error(made.reason);
    const action = { tool: 'exec.run', argHash: argHash(args, sha), project: '/p', session: 's1', tier: 'T2' };
    expect(matchRemembered([made.rule], action, at(30_000))?.id).toBe('rr_1');
    expect(matchRemembered([made.rule], action, at(61_001))).toBeUndefined();
    expect(matchRemembered([made.rule], { ...action, session: 's2' }, at(30_000))).toBeUndefined();
    expect(matchRemembered([made.rule], { ...action, argHash: 'sha256:other' }, at(30_000))).toBeUndefined();
    expect(matchRemembered([made.rule], { ...action, tier: 'T3' }, at(30_000))).toBeUndefined();
    const t3 = decideApproval(pending('T3'), yes(desktop, { phrase: confirmationPhrase(pending('T3')) }), at(1000));
    if (!t3.ok) throw new Error(t3.reason);
    expect(rememberFrom(t3.approval, { id: 'rr_2', ttlMs: 60_000, now: at(1000) })).toMatchObject({ ok: false, reason: 'T3 is never remembered' });
  });
});
