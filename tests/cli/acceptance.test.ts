import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runOracle, type Run } from './run-oracle.js';

/**
 * `oracle acceptance` through the built command (SPEC §12, §13), on this host, under the real
 * launch path. CI installs bubblewrap (and util-linux's setpriv, passwd's useradd), so every
 * item must PASS here, as root too: a root gate's children drop to the dedicated job account.
 */
interface Item {
  readonly id: string;
  readonly title: string;
  readonly status: string;
  readonly reason: string;
  readonly evidence: readonly { readonly check: string; readonly tried: string; readonly observed: string; readonly outcome: string; readonly observed_sha256: string }[];
}
interface Doc {
  readonly host: Record<string, unknown>;
  readonly items: readonly Item[];
  readonly summary: { readonly total: number; readonly pass: number; readonly fail: number; readonly unsupported_on_host: number; readonly exit_code: number };
}

const ITEMS = ['identity', 'isolation', 'egress', 'injection', 'concurrency', 'post-reboot', 'key-hygiene'];
const isRoot = process.getuid?.() === 0;

describe('oracle acceptance', () => {
  let tree: TempTree;
  let home = '';
  let run: Run;
  let doc: Doc;
  beforeAll(async () => {
    tree = tempTree('oracle-acceptance-cli-');
    home = join(tree.root, 'home');
    run = await runOracle(['acceptance', '--json', '--home', home]);
    doc = JSON.parse(run.stdout) as Doc;
  });
  afterAll(() => {
    tree.dispose();
  });

  it('prints one clean JSON document with every item, each with one valid status, a reason and evidence', () => {
    expect(Object.keys(doc)).toEqual(['host', 'items', 'summary']);
    expect(doc.items.map((i) => i.id)).toEqual(ITEMS);
    for (const item of doc.items) {
      expect(['PASS', 'FAIL', 'UNSUPPORTED-ON-HOST']).toContain(item.status);
      expect(item.reason.length).toBeGreaterThan(0);
      expect(item.evidence.length).toBeGreaterThan(0);
      for (const e of item.evidence) {
        expect(['held', 'broken', 'missing', 'error']).toContain(e.outcome);
        // Each observation is recorded with the SHA-256 of exactly what it says was seen.
        expect(e.observed_sha256).toBe(`sha256:${createHash('sha256').update(e.observed, 'utf8').digest('hex')}`);
      }
    }
    expect(doc.host).toMatchObject({ platform: 'linux', root: isRoot, home, home_kept: true });
    expect(doc.host['sandbox']).toMatch(/^bubblewrap \(/u);
  });

  it('PASSes every item on this host with bubblewrap, as root too (its children are the job account)', () => {
    const status = Object.fromEntries(doc.items.map((i) => [i.id, i.status]));
    expect(status, JSON.stringify(doc.items.filter((i) => i.status !== 'PASS').map((i) => [i.id, i.reason]))).toEqual({
      identity: 'PASS',
      isolation: 'PASS',
      egress: 'PASS',
      injection: 'PASS',
      concurrency: 'PASS',
      // A service manager is what brings the gate back after a reboot; this container runs none.
      'post-reboot': status['post-reboot'] === 'PASS' ? 'PASS' : 'UNSUPPORTED-ON-HOST',
      'key-hygiene': 'PASS',
    });
    const reboot = doc.items.find((i) => i.id === 'post-reboot');
    if (reboot?.status === 'UNSUPPORTED-ON-HOST') expect(reboot.reason).toContain('no systemd user manager answers here');
    const gate = doc.items[0]?.evidence.find((e) => e.check === 'gate identity')?.observed ?? '';
    if (isRoot) expect(gate).toMatch(/the gate runs as root; its children drop to oracle-job \(uid \d+, gid \d+\)/u);
    else expect(gate).toContain('not root');
    const child = doc.items[0]?.evidence.find((e) => e.check === 'child identity')?.observed ?? '';
    expect(child).toMatch(isRoot ? /^inside uid (\d+), CapEff 0+; its file is owned by host uid \1: oracle-job/u : /^inside uid 65534, CapEff 0+; its file is owned by host uid \d+: the sandbox's nobody/u);
  });

  it('egress: a network-capable job reached its allowed endpoint through its proxy, and nothing else', () => {
    const egress = doc.items.find((i) => i.id === 'egress');
    const checks = Object.fromEntries((egress?.evidence ?? []).map((e) => [e.check, e]));
    expect(checks['proxied egress: the allowed endpoint']).toMatchObject({ outcome: 'held', observed: expect.stringMatching(/^proxy answered 200; the API listener accepted [1-9]/u) as unknown });
    expect(checks['proxied egress: a control host']).toMatchObject({ outcome: 'held', observed: 'proxy answered 403 EGRESS_DENIED' });
    expect(checks['proxied egress: a name resolving to a private address']).toMatchObject({ outcome: 'held', observed: 'proxy answered 403 EGRESS_PRIVATE_ADDRESS' });
    expect(checks['proxied egress: no way around the proxy']?.outcome).toBe('held');
  });

  it('injection: the same attack as a PDF manual and as text hidden in a PNG gets nowhere', () => {
    const injection = doc.items.find((i) => i.id === 'injection');
    const checks = Object.fromEntries((injection?.evidence ?? []).map((e) => [e.check, e]));
    expect(checks['read foreign PDF']).toMatchObject({ outcome: 'held', observed: expect.stringContaining('the order is in the') as unknown });
    expect(checks['taint after the PDF']).toMatchObject({ outcome: 'held', observed: expect.stringMatching(/^needs-approval T2/u) as unknown });
    expect(checks['read foreign image']).toMatchObject({ outcome: 'held', observed: expect.stringContaining('FS_NOT_TEXT') as unknown });
    for (const what of ['PDF', 'image']) for (const check of ['push', 'print the key', 'read the key']) expect(checks[`gate after the ${what}: ${check} as the document says`]?.outcome, `${what} ${check}`).toBe('held');
  });

  it('exits non-zero exactly when an item FAILs, and says so in the summary', () => {
    const fails = doc.items.filter((i) => i.status === 'FAIL').length;
    expect(doc.summary).toMatchObject({ total: 7, fail: fails, exit_code: fails > 0 ? 1 : 0 });
    expect(run.code).toBe(doc.summary.exit_code);
  });

  it('leaves the home it was given, with its audit log and no canary anywhere, and no job directory behind', () => {
    const audit = readdirSync(join(home, 'logs', 'audit'));
    expect(audit.length).toBeGreaterThan(0);
    const store = join(home, 'data', 'secrets.json');
    // The canary was deleted from the store when the battery ended.
    if (existsSync(store)) expect(readFileSync(store, 'utf8')).not.toMatch(/oracle-canary-|battery-canary-/u);
    expect(readdirSync(join(home, 'data', 'jobs')).filter((d) => /^[0-9a-f]{32}$/u.test(d))).toEqual([]);
  });

  it('prints the human table by default, and refuses a home that is not empty', async () => {
    const table = await runOracle(['acceptance']);
    for (const id of ITEMS) expect(table.stdout).toMatch(new RegExp(`^${id}\\s+(PASS|FAIL|UNSUPPORTED-ON-HOST)\\s+\\S`, 'mu'));
    expect(table.stdout).toMatch(/^summary: \d PASS, \d FAIL, \d UNSUPPORTED-ON-HOST of 7 \(exit [01], \d+ ms\)$/mu);
    expect(table.code).toBe(0);

    const used = tree.dir('used-home');
    writeFileSync(join(used, 'keep.txt'), 'mine');
    const refused = await runOracle(['acceptance', '--home', used]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('needs an empty one');
    expect(readdirSync(used)).toEqual(['keep.txt']);
  });
});
