import { describe, expect, it } from 'vitest';
import { runItems, type ItemProbe } from '../../server/acceptance/battery.js';
import { childIdentityEvidence, gateIdentityEvidence } from '../../server/acceptance/identity.js';
import { proxiedEgressEvidence } from '../../server/acceptance/egress.js';
import { postRebootItem } from '../../server/acceptance/post-reboot.js';
import { foreignEntries, sandboxEvidence } from '../../server/acceptance/isolation.js';
import { buildReport, exitCode, ITEM_IDS, itemResult, OUTCOME, STATUS, STATUSES, type Evidence, type ItemId } from '../../server/acceptance/model.js';
import { renderJson, renderTable, type HostSection } from '../../server/acceptance/render.js';
import type { Subject } from '../../server/acceptance/subject.js';

/** The battery's pure parts (SPEC §13): statuses, the exit rule, rendering, and how probe output counts. */
const e = (outcome: Evidence['outcome'], check = 'c'): Evidence => ({ check, tried: 't', observed: `${check} ${outcome}`, outcome });
const bwrap = { kind: 'bubblewrap', detail: 'test', identity: { kind: 'mapped' } } as const;
const rootBwrap = { kind: 'bubblewrap', detail: 'test', identity: { kind: 'dedicated', name: 'oracle-job', uid: 999, gid: 998, setpriv: '/usr/bin/setpriv' } } as const;
const rootOnly = { kind: 'bubblewrap', detail: 'test', identity: { kind: 'root', reason: 'no setpriv' } } as const;
const none = { kind: 'none', reason: 'bwrap is not installed' } as const;
const host: HostSection = {
  platform: 'linux',
  release: 'r',
  arch: 'x64',
  node: 'v20',
  uid: 1000,
  user: 'u',
  root: false,
  sandbox: 'bubblewrap',
  secrets: 'file',
  home: '/h',
  home_kept: false,
  policy_digest: 'sha256:x',
  started_at: 't',
  duration_ms: 1,
};

describe('acceptance item model', () => {
  it('derives one status from the evidence: error and broken FAIL, missing is UNSUPPORTED-ON-HOST, only all-held PASSes', () => {
    expect(itemResult('egress', [e('held'), e('held')], 'fine').status).toBe(STATUS.pass);
    expect(itemResult('egress', [e('held'), e('missing', 'sandbox')], 'fine')).toMatchObject({ status: 'UNSUPPORTED-ON-HOST', reason: 'sandbox: sandbox missing' });
    expect(itemResult('egress', [e('missing'), e('broken', 'leak')], 'fine')).toMatchObject({ status: 'FAIL', reason: 'leak: leak broken' });
    // An error is never turned into UNSUPPORTED or PASS, even beside a missing mechanism.
    expect(itemResult('egress', [e('missing'), e('error', 'probe')], 'fine')).toMatchObject({ status: 'FAIL' });
    expect(itemResult('egress', [e('error', 'probe')], 'fine').reason).toContain('could not run as designed');
    // Nothing observed proves nothing.
    expect(itemResult('egress', [], 'fine').status).toBe(STATUS.fail);
  });

  it('reports every item exactly once, in order; an item no probe reported is a FAIL', () => {
    const report = buildReport(host, [itemResult('isolation', [e('held')], 'ok'), itemResult('identity', [e('held')], 'ok')]);
    expect(report.items.map((i) => i.id)).toEqual([...ITEM_IDS]);
    expect(report.items.map((i) => i.status)).toEqual(['PASS', 'PASS', 'FAIL', 'FAIL', 'FAIL', 'FAIL', 'FAIL']);
    expect(report.items[2]?.reason).toContain('no result for this item');
    expect(report.summary).toEqual({ total: 7, pass: 2, fail: 5, unsupported_on_host: 0, exit_code: 1 });
  });

  it('exits non-zero when any item FAILs, and zero for PASS and UNSUPPORTED-ON-HOST alone', () => {
    const all = (outcome: Evidence['outcome']) => ITEM_IDS.map((id) => itemResult(id, [e(outcome)], 'ok'));
    expect(exitCode(all('held'))).toBe(0);
    expect(exitCode(all('missing'))).toBe(0);
    expect(exitCode([...all('held').slice(1), itemResult('identity', [e('broken')], 'ok')])).toBe(1);
  });

  it('renders a clean JSON document and a table with every item, its status and its evidence', () => {
    const items = ITEM_IDS.map((id, i) => itemResult(id, [e(i === 0 ? 'broken' : i === 1 ? 'missing' : 'held', `check-${id}`)], `pass-${id}`));
    const report = buildReport(host, items);
    const parsed = JSON.parse(renderJson(report)) as { host: unknown; items: { id: string; status: string; reason: string; evidence: unknown[] }[]; summary: { exit_code: number } };
    expect(Object.keys(parsed)).toEqual(['host', 'items', 'summary']);
    expect(Object.keys(parsed.items[0] ?? {})).toEqual(['id', 'title', 'status', 'reason', 'evidence']);
    expect(parsed.items.map((i) => [i.id, i.status])).toEqual([
      ['identity', 'FAIL'],
      ['isolation', 'UNSUPPORTED-ON-HOST'],
      ['egress', 'PASS'],
      ['injection', 'PASS'],
      ['concurrency', 'PASS'],
      ['post-reboot', 'PASS'],
      ['key-hygiene', 'PASS'],
    ]);
    expect(parsed.summary.exit_code).toBe(1);
    const table = renderTable(report);
    for (const item of report.items) expect(table).toMatch(new RegExp(`^${item.id}\\s+${item.status}\\s+\\S`, 'mu'));
    expect(table).toContain('[LEAK] check-identity');
    expect(table).toContain('summary: 5 PASS, 1 FAIL, 1 UNSUPPORTED-ON-HOST of 7 (exit 1');
  });

  it('turns a probe that throws or hangs into a FAIL with the error, and still runs the rest', async () => {
    const ok: ItemProbe = () => Promise.resolve(itemResult('egress', [e('held')], 'ok'));
    const probes = Object.fromEntries(ITEM_IDS.map((id) => [id, (s: Subject) => ok(s).then((r) => ({ ...r, id, title: id }))])) as Record<ItemId, ItemProbe>;
    probes.isolation = () => Promise.reject(new Error('bwrap exploded'));
    probes.concurrency = () => new Promise(() => undefined);
    const items = await runItems({} as Subject, probes, 200);
    expect(items.map((i) => i.status)).toEqual(['PASS', 'FAIL', 'PASS', 'PASS', 'FAIL', 'PASS', 'PASS']);
    expect(items[1]?.reason).toBe('the probe failed unexpectedly: bwrap exploded');
    expect(items[4]?.reason).toContain('did not finish within 200 ms');
    expect(STATUSES).toContain(items[4]?.status);
  });
});

describe('how probe output counts', () => {
  it('identity: the gate or a child that is root on the host FAILs; no sandbox is UNSUPPORTED; garbage is an error', () => {
    expect(gateIdentityEvidence({ uid: 0, gid: 0, user: 'root' }, bwrap).outcome).toBe(OUTCOME.broken);
    expect(gateIdentityEvidence({ uid: 0, gid: 0, user: 'root' }, rootOnly).outcome).toBe(OUTCOME.broken);
    expect(gateIdentityEvidence({ uid: 0, gid: 0, user: 'root' }, none).outcome).toBe(OUTCOME.broken);
    expect(gateIdentityEvidence({ uid: 0, gid: 0, user: 'root' }, rootBwrap)).toMatchObject({ outcome: 'held', observed: expect.stringContaining('oracle-job (uid 999') as unknown });
    expect(gateIdentityEvidence({ uid: 1000, gid: 1000, user: 'dev' }, bwrap).outcome).toBe(OUTCOME.held);
    const out = (uid: number, caps = '0000000000000000') => `PROBE-RAN identity\nUID ${String(uid)}\nGID ${String(uid)}\nCAP CapEff:\t${caps}\nMADE f\n`;
    expect(childIdentityEvidence(out(65534), 1000, bwrap).outcome).toBe(OUTCOME.held);
    expect(childIdentityEvidence(out(65534), 0, bwrap)).toMatchObject({ outcome: 'broken', observed: expect.stringContaining('owned by host uid 0') as unknown });
    expect(childIdentityEvidence(out(1000), 1000, none).outcome).toBe(OUTCOME.missing);
    expect(childIdentityEvidence(out(0, '000001ffffffffff'), 0, none).outcome).toBe(OUTCOME.broken);
    expect(childIdentityEvidence(out(65534, '000001ffffffffff'), 1000, bwrap).outcome).toBe(OUTCOME.broken);
    expect(childIdentityEvidence(out(1000), 1000, bwrap).outcome).toBe(OUTCOME.broken);
    expect(childIdentityEvidence(out(65534), undefined, bwrap).outcome).toBe(OUTCOME.error);
    expect(childIdentityEvidence('nothing useful', 1000, bwrap).outcome).toBe(OUTCOME.error);
    // Root's dedicated account: that very uid inside and on the host, nothing else.
    expect(childIdentityEvidence(out(999), 999, rootBwrap).outcome).toBe(OUTCOME.held);
    expect(childIdentityEvidence(out(65534), 999, rootBwrap).outcome).toBe(OUTCOME.broken);
    expect(childIdentityEvidence(out(999), 0, rootBwrap).outcome).toBe(OUTCOME.broken);
    expect(childIdentityEvidence(out(999, '000001ffffffffff'), 999, rootBwrap).outcome).toBe(OUTCOME.broken);
  });

  it('proxied egress: the allowed endpoint must be reached, a control host or private name through the proxy or a direct connection is a FAIL', () => {
    const out = (direct: string, allowed: string, control: string, priv: string) => `PROBE-RAN proxied\nDIRECT ${direct}\nALLOWED ${allowed}\nCONTROL ${control}\nPRIVATE ${priv}\n`;
    const good = out('BLOCKED ECONNREFUSED', '200', '403 EGRESS_DENIED', '403 EGRESS_PRIVATE_ADDRESS');
    expect(proxiedEgressEvidence(good, 'job', { api: 1, control: 0 }, bwrap).map((e) => e.outcome)).toEqual(['held', 'held', 'held', 'held']);
    expect(proxiedEgressEvidence(good, 'job', { api: 1, control: 1 }, bwrap).map((e) => e.outcome)).toContain('broken');
    expect(proxiedEgressEvidence(out('CONNECTED', '200', '403 EGRESS_DENIED', '403 EGRESS_PRIVATE_ADDRESS'), 'job', { api: 2, control: 0 }, bwrap).map((e) => e.outcome)).toContain('broken');
    expect(proxiedEgressEvidence(out('CONNECTED', '200', '403 EGRESS_DENIED', '403 EGRESS_PRIVATE_ADDRESS'), 'job', { api: 2, control: 0 }, none).map((e) => e.outcome)).toContain('missing');
    expect(proxiedEgressEvidence(out('BLOCKED x', '200', '200', '403 EGRESS_PRIVATE_ADDRESS'), 'job', { api: 1, control: 0 }, bwrap).map((e) => e.outcome)).toContain('broken');
    expect(proxiedEgressEvidence(out('BLOCKED x', '200', '403 EGRESS_DENIED', '200'), 'job', { api: 2, control: 0 }, bwrap).map((e) => e.outcome)).toContain('broken');
    expect(proxiedEgressEvidence(out('BLOCKED x', '403 EGRESS_DENIED', '403 EGRESS_DENIED', '403 EGRESS_PRIVATE_ADDRESS'), 'job', { api: 0, control: 0 }, bwrap).map((e) => e.outcome)).toContain('error');
    expect(proxiedEgressEvidence('PROBE-RAN proxied\n', 'job', { api: 0, control: 0 }, bwrap).map((e) => e.outcome)).toEqual(['error']);
  });

  it('post-reboot: no service manager is UNSUPPORTED with the reason; one without the service a FAIL that says what to run; an enabled, restarting, running service a PASS', async () => {
    const manager = (answers: Record<string, { code: number; out: string }>) => (args: readonly string[]) => Promise.resolve(answers[args[0] ?? ''] ?? { code: 1, out: 'unknown' });
    const none = await postRebootItem('linux', manager({ 'show-environment': { code: 1, out: 'Failed to connect to bus: No medium found' } }));
    expect(none).toMatchObject({ status: 'UNSUPPORTED-ON-HOST', reason: expect.stringContaining('no systemd user manager answers here') as unknown });
    const absent = await postRebootItem('linux', manager({ 'show-environment': { code: 0, out: 'PATH=/usr/bin' }, 'is-enabled': { code: 1, out: 'not-found' } }));
    expect(absent).toMatchObject({ status: 'FAIL', reason: expect.stringContaining('oracle service install') as unknown });
    const unit = '[Service]\nExecStart=/usr/bin/node /x/oracle.js serve --home /h\nRestart=on-failure\n';
    const good = await postRebootItem('linux', manager({ 'show-environment': { code: 0, out: '' }, 'is-enabled': { code: 0, out: 'enabled' }, cat: { code: 0, out: unit }, 'is-active': { code: 0, out: 'active' } }));
    expect(good.status).toBe('PASS');
    const stopped = await postRebootItem('linux', manager({ 'show-environment': { code: 0, out: '' }, 'is-enabled': { code: 0, out: 'enabled' }, cat: { code: 0, out: unit.replace('on-failure', 'no') }, 'is-active': { code: 3, out: 'inactive' } }));
    expect(stopped.status).toBe('FAIL');
    expect((await postRebootItem('darwin')).status).toBe('UNSUPPORTED-ON-HOST');
  });

  it('isolation: a read under bubblewrap is a leak, without a sandbox UNSUPPORTED, an unreported target an error', () => {
    const targets = [
      { label: 'policy-file', path: '/h/config/policy.yaml', what: 'the policy' },
      { label: 'oracle-home', path: '/h', what: 'the home', entries: ['certs', 'config', 'data', 'logs'] },
    ];
    const job = (stdout: string) => ({ stdout: `PROBE-RAN read\nSELF /h/data/jobs/abc\nCONTROL ok\n${stdout}`, exit_code: 0, sandbox: 'bubblewrap' });
    const held = sandboxEvidence(targets, job('DENIED policy-file cat: No such file or directory\nLISTED oracle-home data/\n'), bwrap);
    expect(held.map((x) => x.outcome)).toEqual(['held', 'held']);
    expect(held[1]?.observed).toContain("none of the host's 4");
    const leaked = sandboxEvidence(targets, job('READ policy-file 300 bytes\nLISTED oracle-home certs/config/data/logs/\n'), bwrap);
    expect(leaked.map((x) => x.outcome)).toEqual(['broken', 'broken']);
    expect(leaked[1]?.observed).toContain('certs, config, logs');
    expect(sandboxEvidence(targets, job('READ policy-file 300 bytes\nLISTED oracle-home certs/config/data/logs/\n'), none).map((x) => x.outcome)).toEqual(['missing', 'missing']);
    expect(sandboxEvidence(targets, job('DENIED policy-file gone\n'), bwrap).map((x) => x.outcome)).toEqual(['held', 'error']);
    // A probe that never ran (or could not even use its own job dir) shows nothing.
    expect(sandboxEvidence(targets, { stdout: '', exit_code: 127, sandbox: 'bubblewrap' }, bwrap).map((x) => x.outcome)).toEqual(['error']);
    expect(foreignEntries(targets[1] ?? { label: '', path: '', what: '' }, ['data', 'logs'], '/h/data/jobs/abc')).toEqual(['logs']);
  });
});
