import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { ORACLE_BIN, runOracle } from '../cli/run-oracle.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { call } from '../fixtures/https-client.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * A policy that changes safely (issue 16): a valid edit is in force after a reload, without a
 * restart, with the desktop session and a waiting approval still there; an edit with errors is
 * refused, the running policy kept and said so (health, the CLI's exit status and words); every
 * load audited with both digests. Through the real HTTPS server, the built CLI and SIGHUP.
 */
const policyText = (caps: string) => (root: string) => `scopes:\n  projects: { roots: [{ path: "${root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [${caps}] }\n`;
const READS = policyText('fs.read');
const DELETES = policyText('fs.read, fs.delete');

describe('reloading the policy of a running gate', () => {
  let tree: TempTree;
  let running: Running;
  let policy = '';
  let ca = '';
  let token = '';
  let cookie = '';
  let target = '';

  const act = (wait = 0) => call(`${running.url}/api/v1/actions?wait=${String(wait)}`, { ca, method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ tool: 'fs.delete', args: { path: target } }) });
  const desk = (method: string, path: string) => call(`${running.url}${path}`, { ca, method, headers: { cookie, 'content-type': 'application/json', origin: running.url }, ...(method === 'POST' ? { body: '{}' } : {}) });

  beforeAll(async () => {
    tree = tempTree('oracle-reload-');
    target = join(tree.dir('projects/app'), 'old.txt');
    writeFileSync(target, 'x');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, READS(tree.root));
    running = await startServer({ home: tree.dir('home'), policy, port: 0 });
    ca = readFileSync(join(running.runtime.gate.home, 'certs', 'ca.crt'), 'utf8');
    token = (await running.credentials.issue('ag', 'claude-code')).token;
    // A desktop browser session, signed in once with the login link.
    const login = await call(running.loginUrl, { ca });
    cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
  });

  afterAll(async () => {
    await running.close();
    tree.dispose();
  });

  it('puts a valid edit in force without a restart; the desktop session stays', async () => {
    expect((await act()).body).toMatchObject({ decision: 'deny', executed: false });
    const before = running.runtime.gate.digest;
    writeFileSync(policy, DELETES(tree.root));
    const reload = await desk('POST', '/api/v1/desk/policy/reload');
    expect(reload.status).toBe(200);
    expect(reload.body).toMatchObject({ reload: { ok: true, from: before, changed: true } });
    // The same action now waits for a person instead of being refused.
    const waiting = await act();
    expect(waiting.body).toMatchObject({ decision: 'needs-approval', status: 'pending' });
    const listed = await desk('GET', '/api/v1/approvals');
    expect(listed.status).toBe(200);
    expect((listed.body['approvals'] as unknown[]).length).toBe(1);
    const loads = auditRecords(running.runtime.gate.home).filter((r) => r['kind'] === 'policy.load');
    expect(loads.at(-1)).toMatchObject({ actor: 'desktop', outcome: 'normal', detail: { previous: before, digest: running.runtime.gate.digest, reload: true } });
  });

  it('refuses an edit with errors and keeps deciding by the policy in force, and says so', async () => {
    const inForce = running.runtime.gate.digest;
    writeFileSync(policy, `${DELETES(tree.root)}  oops: [\n`);
    const reload = await desk('POST', '/api/v1/desk/policy/reload');
    expect(reload.status).toBe(422);
    expect(reload.body).toMatchObject({ error: { code: 'POLICY_REFUSED' }, reload: { ok: false, kept: inForce, file: policy } });
    expect(running.runtime.gate.digest).toBe(inForce);
    expect(running.runtime.mode()).toBe('normal');
    expect((await act()).body).toMatchObject({ decision: 'needs-approval' });
    const health = await call(`${running.url}/api/v1/health`, { ca });
    expect(health.body).toMatchObject({ mode: 'normal', policy_digest: inForce, policy_refused: { file: policy } });
    expect(auditRecords(running.runtime.gate.home).filter((r) => r['kind'] === 'policy.load').at(-1)).toMatchObject({ outcome: 'refused', detail: { kept: inForce } });
    // The CLI says the same, with the errors, and exits 1; fixed, it reloads and exits 0.
    const refused = await runOracle(['policy', 'reload', '--home', running.runtime.gate.home]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('has errors; the gate keeps deciding by the policy in force');
    expect(refused.stderr).toMatch(/policy\.yaml:\d+:\d+: /u);
    writeFileSync(policy, READS(tree.root));
    const fixed = await runOracle(['policy', 'reload', '--home', running.runtime.gate.home]);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(/^policy reloaded: sha256:[0-9a-f]{64} -> sha256:[0-9a-f]{64}\n$/u);
    // The CLI's reload is the CLI's in the log (`oracle halt` is `cli` too, SIGHUP `signal`), not the desktop's.
    expect(auditRecords(running.runtime.gate.home).filter((r) => r['kind'] === 'policy.load').at(-1)).toMatchObject({ actor: 'cli', outcome: 'normal', detail: { reload: true } });
    expect((await call(`${running.url}/api/v1/health`, { ca })).body['policy_refused']).toBeUndefined();
    expect((await act()).body).toMatchObject({ decision: 'deny' });
  });

  it('reloads on SIGHUP in `oracle serve`', async () => {
    const home = tree.dir('home-serve');
    const file = join(tree.root, 'serve-policy.yaml');
    writeFileSync(file, READS(tree.root));
    const serve = spawn(process.execPath, [ORACLE_BIN, 'serve', '--port', '0', '--home', home, '--policy', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    serve.stderr.on('data', (b: Buffer) => (err += b.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => { reject(new Error(`no listening line: ${out}`)); }, 30_000);
        serve.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          if (out.includes('listening on')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      writeFileSync(file, DELETES(tree.root));
      serve.kill('SIGHUP');
      await expect.poll(() => err, { timeout: 10_000 }).toContain('policy reloaded');
      expect(auditRecords(home).filter((r) => r['kind'] === 'policy.load').at(-1)).toMatchObject({ actor: 'signal', detail: { reload: true } });
    } finally {
      serve.kill('SIGTERM');
    }
  });
});
