import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApprovalsFile } from '../../server/adapters/approvals-store.js';
import { ensureTlsMaterial } from '../../server/adapters/certs.js';
import { ORACLE_BIN, runOracle } from '../cli/run-oracle.js';
import { tempTree } from '../fixtures/temp-tree.js';
import { listen } from '../fixtures/sse.js';

function get(url: string, ca: string): Promise<{ status: number; body: string; spki: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      const socket = res.socket;
      if (!(socket instanceof TLSSocket)) throw new TypeError('not a TLS socket');
      const cert = socket.getPeerX509Certificate();
      const spki = cert === undefined ? '' : createHash('sha256').update(cert.publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), spki });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Waits for the line that says where the server listens. */
function started(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      reject(new Error(`no listening line: ${out}`));
    }, 30_000);
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (https:\/\/127\.0\.0\.1:\d+)/u.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => {
      reject(new Error(`exited ${String(code)}: ${out}`));
    });
  });
}

describe('oracle serve (real HTTPS on loopback)', () => {
  const tree = tempTree('oracle-serve-');
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
    tree.dispose();
  });

  it('serves health over TLS with a certificate chained to the local CA, on 127.0.0.1 only', async () => {
    const home = tree.dir('home');
    const child = spawn(process.execPath, [ORACLE_BIN, 'serve', '--port', '0', '--home', home], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const url = await started(child);
    const ca = readFileSync(join(home, 'certs', 'ca.crt'), 'utf8');
    const res = await get(`${url}/api/v1/health`, ca);
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as { ok: boolean; mode: string; spki_sha256: string };
    expect(body).toMatchObject({ ok: true, mode: 'normal' });
    // the pin the server reports is the key the TLS handshake really used
    expect(body.spki_sha256).toBe(res.spki);
    expect((await get(`${url}/api/v1/actions`, ca)).status).toBe(401);
    const cert = new X509Certificate(readFileSync(join(home, 'certs', 'server.crt')));
    expect(cert.verify(new X509Certificate(ca).publicKey)).toBe(true);
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  });

  it('keeps the server key, and so the pin, when the certificate is re-issued for new names', async () => {
    const home = tree.dir('pin');
    const first = await ensureTlsMaterial(home, { dns: ['localhost'], ips: ['127.0.0.1'] });
    const again = await ensureTlsMaterial(home, { dns: ['localhost'], ips: ['127.0.0.1'] });
    const v6 = await ensureTlsMaterial(home, { dns: ['localhost'], ips: ['127.0.0.1', '::1'] });
    const v6again = await ensureTlsMaterial(home, { dns: ['localhost'], ips: ['127.0.0.1', '::1'] });
    expect([v6.reissued, v6again.reissued]).toEqual([true, false]);
    const moved = await ensureTlsMaterial(home, { dns: ['localhost', 'desk.local'], ips: ['127.0.0.1', '192.168.1.20'] });
    expect(first.reissued).toBe(true);
    expect(again.reissued).toBe(false);
    expect(moved.reissued).toBe(true);
    expect(moved.spkiSha256).toBe(first.spkiSha256);
    expect(moved.cert).not.toBe(first.cert);
    expect(new X509Certificate(moved.cert).subjectAltName).toContain('IP Address:192.168.1.20');
    expect(new X509Certificate(moved.cert).publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });
});

describe('oracle serve stopping (SIGTERM) with a Claude Code call waiting for a person', () => {
  const tree = tempTree('oracle-serve-stop-');
  afterAll(() => {
    tree.dispose();
  });

  it('answers the waiting call as denied, withdraws its card, releases the home and exits promptly', async () => {
    const home = tree.dir('home');
    const app = tree.dir('projects/app');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  make: {}\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, proc.spawn] }\n`);
    const serve = spawn(process.execPath, [ORACLE_BIN, 'serve', '--port', '0', '--home', home, '--policy', policy], { stdio: ['ignore', 'pipe', 'pipe'] });
    await started(serve);
    expect((await runOracle(['integrate', 'claude-code', '--project', app, '--home', home, '--policy', policy])).code).toBe(0);
    // The desktop screen is open, so the call waits for a person (with nobody to see it, it is answered at once).
    const gate = JSON.parse(readFileSync(join(home, 'data', 'server.json'), 'utf8')) as { url: string; token: string };
    const screen = await listen(`${gate.url}/api/v1/events`, readFileSync(join(home, 'certs', 'ca.crt'), 'utf8'), { authorization: `Desktop ${gate.token}` });
    const hook = runOracle(['hook', 'claude-code', '--home', home], JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: app, tool_name: 'Bash', tool_input: { command: 'make a' } }));
    // The card is waiting once it is in the approvals file.
    // The desk's state is the snapshot plus its journal of changes since.
    const stored = () => ['approvals.json', 'approvals.journal'].map((f) => (existsSync(join(home, 'data', f)) ? readFileSync(join(home, 'data', f), 'utf8') : '')).join('\n');
    for (let i = 0; i < 200 && !stored().includes('"pending"'); i++) await new Promise((r) => setTimeout(r, 25));
    const exited = new Promise<number | null>((resolve) => serve.on('exit', resolve));
    const stopAt = Date.now();
    serve.kill('SIGTERM');
    expect(await exited).toBe(0);
    // SPEC §11 / issue: within 2 s; measured here at tens of milliseconds.
    expect(Date.now() - stopAt).toBeLessThan(2000);
    const answer = JSON.parse((await hook).stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(answer.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: 'ORACLE: the gate stopped before anyone answered; denied' });
    // Cancelled when the gate stopped: the last word on every approval is no longer pending.
    expect(new ApprovalsFile(join(home, 'data')).load().approvals.filter((a) => a.state === 'pending')).toEqual([]);
    // The lock is free: a new gate opens the same home at once.
    screen.req.destroy();
    const again = spawn(process.execPath, [ORACLE_BIN, 'serve', '--port', '0', '--home', home, '--policy', policy], { stdio: ['ignore', 'pipe', 'pipe'] });
    await started(again);
    again.kill('SIGTERM');
  });
});
