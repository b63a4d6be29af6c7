import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTlsMaterial } from '../../server/adapters/certs.js';
import { openSecretStore } from '../../server/adapters/secrets/index.js';
import type { Runtime } from '../../server/app/runtime.js';
import type { GateEvent } from '../../server/app/events.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { notRootOnLinux, skipping } from '../fixtures/privileges.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from '../toolhost/runtime-fixture.js';

/**
 * agent.delegate as the gate runs it (issue 17), with a stub standing in for `claude -p` (there is
 * no model here): a script that tries everything a delegated agent should not get (the operator's
 * files, the ORACLE home, the job root, another host directly and through the proxy, the API
 * without the proxy) and then calls the allowed API through its job's egress proxy. The API is a
 * real TLS server in a network namespace of its own, joined to the host by a veth pair, so the
 * only way the job can reach it is through the gate's proxy. Root only (network namespaces).
 */
const tag = randomBytes(3).toString('hex');
const NS = `oracle-api-${tag}`;
const HOST_IF = `oh${tag}`;
const NS_IF = `on${tag}`;
const SUBNET = 200 + (parseInt(tag.slice(0, 2), 16) % 50);
const API_IP = `10.${String(SUBNET)}.77.2`;
const HOST_IP = `10.${String(SUBNET)}.77.1`;
const API_PORT = 8443;
const CONTROL_PORT = 9443;

const API_SERVER = `
const https = require('node:https');
const fs = require('node:fs');
const [key, cert, log, port, control] = process.argv.slice(2);
const serve = (p, name) => https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    fs.appendFileSync(log, JSON.stringify({ server: name, method: req.method, path: req.url, key: req.headers['x-api-key'] || null, body }) + '\\n');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ reply: name === 'api' ? 'the stand-in model says: notes summarised' : 'control host' }));
  });
}).listen(Number(p), '${API_IP}', () => { if (name === 'api') console.log('listening'); });
serve(port, 'api');
serve(control, 'control');
`;

/** The stand-in for `claude -p`: prints one line per attempt, writes its answer, then tries to print its key. */
const STUB = (targets: { operatorFile: string; oracleHome: string; jobsRoot: string; hostPort: number }): string => `#!/usr/bin/env node
const fs = require('node:fs');
const net = require('node:net');
const tls = require('node:tls');
const say = (what, ok, detail) => console.log(JSON.stringify({ what, ok, detail: String(detail).slice(0, 200) }));
const tryRead = (what, path) => { try { say(what, true, 'listed ' + fs.readdirSync(path).join(',')); } catch (e) { try { fs.readFileSync(path); say(what, true, 'read'); } catch (e2) { say(what, false, e2.code || e2.message); } } };
tryRead('operator-file', ${JSON.stringify(targets.operatorFile)});
tryRead('oracle-home', ${JSON.stringify(targets.oracleHome)});
tryRead('job-root', ${JSON.stringify(targets.jobsRoot)});
tryRead('own-copy', 'notes.md');
const proxy = new URL(process.env.HTTPS_PROXY);
const direct = (what, host, port) => new Promise((done) => {
  const s = net.connect({ host, port, timeout: 3000 });
  s.on('connect', () => { say(what, true, 'connected'); s.destroy(); done(); });
  s.on('error', (e) => { say(what, false, e.code); done(); });
  s.on('timeout', () => { say(what, false, 'timeout'); s.destroy(); done(); });
});
const connectVia = (host, port) => new Promise((done) => {
  const s = net.connect(Number(proxy.port), proxy.hostname);
  let head = '';
  s.on('error', (e) => done({ ok: false, detail: e.code }));
  s.write('CONNECT ' + host + ':' + port + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\n\\r\\n');
  const onData = (c) => { head += c.toString('latin1'); const end = head.indexOf('\\r\\n\\r\\n'); if (end < 0) return; s.off('data', onData); const status = head.split('\\r\\n')[0]; if (status.includes(' 200 ')) done({ ok: true, socket: s, detail: status }); else { done({ ok: false, detail: status + ' ' + head.slice(end + 4).trim() }); s.destroy(); } };
  s.on('data', onData);
});
(async () => {
  await direct('direct-api', '${API_IP}', ${String(API_PORT)});
  await direct('direct-host-loopback', '127.0.0.1', ${String(targets.hostPort)});
  for (const [what, host, port] of [['proxy-control', '${API_IP}', ${String(CONTROL_PORT)}], ['proxy-host-loopback', '127.0.0.1', ${String(targets.hostPort)}], ['proxy-private-name', 'localhost', ${String(API_PORT)}]]) {
    const r = await connectVia(host, port); say(what, r.ok, r.detail); if (r.socket) r.socket.destroy();
  }
  const r = await connectVia('${API_IP}', ${String(API_PORT)});
  if (!r.ok) { say('api', false, r.detail); process.exit(3); }
  const t = tls.connect({ socket: r.socket, ca: fs.readFileSync('api-ca.pem'), servername: undefined, checkServerIdentity: () => undefined });
  t.on('secureConnect', () => {
    const body = JSON.stringify({ task: process.argv[process.argv.length - 1], notes: fs.readFileSync('notes.md', 'utf8') });
    t.write('POST /v1/messages HTTP/1.1\\r\\nHost: ${API_IP}\\r\\nx-api-key: ' + process.env.ANTHROPIC_API_KEY + '\\r\\ncontent-type: application/json\\r\\ncontent-length: ' + Buffer.byteLength(body) + '\\r\\nconnection: close\\r\\n\\r\\n' + body);
  });
  let reply = '';
  t.on('data', (c) => (reply += c));
  t.on('error', (e) => { say('api', false, e.message); process.exit(4); });
  t.on('close', () => {
    const json = reply.slice(reply.indexOf('\\r\\n\\r\\n') + 4);
    say('api', reply.startsWith('HTTP/1.1 200'), json);
    fs.writeFileSync('answer.md', JSON.parse(json).reply + '\\n');
    // A delegate that tries to hand its key back: the gate redacts it from everything it returns.
    console.log('KEY ' + process.env.ANTHROPIC_API_KEY);
    console.error('also on stderr: ' + process.env.ANTHROPIC_API_KEY);
    fs.writeFileSync('leak.txt', 'key=' + process.env.ANTHROPIC_API_KEY + '\\n');
  });
})();
`;

function ip(...args: string[]): void {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr}`);
}

/** Every file under `dir` whose bytes contain `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) found.push(...filesHolding(path, needle));
    else if (stat.isFile() && readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

describe.skipIf(skipping('agent.delegate through a per-job egress proxy to an API in a network namespace', notRootOnLinux()))('agent.delegate run by the gate', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let api: ChildProcess;
  let hostListener: Server;
  let hostPort = 0;
  const hostReached: string[] = [];
  const events: GateEvent[] = [];
  const key = `sk-ant-api03-${randomBytes(24).toString('base64url')}`;
  let apiLog = '';
  let project = '';
  let operatorFile = '';

  beforeAll(async () => {
    tree = tempTree('oracle-delegate-');
    ip('netns', 'add', NS);
    ip('link', 'add', HOST_IF, 'type', 'veth', 'peer', 'name', NS_IF);
    ip('link', 'set', NS_IF, 'netns', NS);
    ip('addr', 'add', `${HOST_IP}/30`, 'dev', HOST_IF);
    ip('link', 'set', HOST_IF, 'up');
    ip('-n', NS, 'addr', 'add', `${API_IP}/30`, 'dev', NS_IF);
    ip('-n', NS, 'link', 'set', NS_IF, 'up');
    ip('-n', NS, 'link', 'set', 'lo', 'up');
    const apiHome = tree.dir('api');
    const tls = await ensureTlsMaterial(apiHome, { dns: [], ips: [API_IP] });
    writeFileSync(join(apiHome, 'key.pem'), tls.key);
    writeFileSync(join(apiHome, 'cert.pem'), tls.cert);
    writeFileSync(join(apiHome, 'server.cjs'), API_SERVER);
    apiLog = join(apiHome, 'requests.jsonl');
    writeFileSync(apiLog, '');
    api = spawn('ip', ['netns', 'exec', NS, process.execPath, join(apiHome, 'server.cjs'), join(apiHome, 'key.pem'), join(apiHome, 'cert.pem'), apiLog, String(API_PORT), String(CONTROL_PORT)], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      api.stdout?.on('data', (c: Buffer) => {
        if (c.toString().includes('listening')) resolve();
      });
      api.once('exit', (code) => {
        reject(new Error(`the API server exited ${String(code)}`));
      });
    });
    hostListener = createServer((s) => {
      hostReached.push('host');
      s.destroy();
    });
    await new Promise<void>((r) => {
      hostListener.listen(0, '127.0.0.1', () => {
        r();
      });
    });
    hostPort = (hostListener.address() as { port: number }).port;

    project = tree.dir('projects/app');
    writeFileSync(join(project, 'notes.md'), 'meeting notes: ship the proxy\n');
    writeFileSync(join(project, 'api-ca.pem'), readFileSync(join(apiHome, 'certs', 'ca.crt')));
    operatorFile = join(tree.dir('operator'), 'private.txt');
    writeFileSync(operatorFile, 'the operator’s own file\n');
    const home = tree.dir('home');
    const stub = join(tree.dir('bin'), 'stub-claude');
    writeFileSync(stub, STUB({ operatorFile, oracleHome: home, jobsRoot: join(home, 'data', 'jobs'), hostPort }));
    chmodSync(stub, 0o755);
    const store = await openSecretStore(home);
    await store.store.set('delegate-key', key);
    runtime = await runtimeFor(
      tree,
      [
        'scopes:',
        `  projects: { roots: [{ path: "${project}", mode: rw }] }`,
        'delegate:',
        `  program: ${stub}`,
        '  args: ["-p", "--output-format", "text"]',
        '  key: { secret: delegate-key, env: ANTHROPIC_API_KEY }',
        `  hosts: ["${API_IP}:${String(API_PORT)}"]`,
        '  timeout: 60',
        'principals:',
        '  agents:',
        '    tester: { capabilities: [fs.read, fs.write, agent.delegate] }',
        '',
      ].join('\n'),
      { home: 'home' },
    );
    runtime.events.subscribe(undefined, (e) => events.push(e), true);
  }, 60_000);

  afterAll(async () => {
    await runtime.close();
    api.kill('SIGKILL');
    hostListener.close();
    spawnSync('ip', ['netns', 'del', NS]);
    spawnSync('ip', ['link', 'del', HOST_IF]);
    tree.dispose();
  });

  it('gets exactly its files and the allowed API through the proxy; its key appears nowhere it should not', async () => {
    const result = await runtime.submit({ tool: 'agent.delegate', session: 'delegating', args: { description: 'summarise the notes', prompt: 'Summarise notes.md for me', files: [join(project, 'notes.md'), join(project, 'api-ca.pem')], out_dir: project } }, 0, 'tester');
    expect(result, JSON.stringify(result).slice(0, 2000)).toMatchObject({ decision: 'allow', executed: true, sandbox: 'bubblewrap' });
    const lines = (result.stdout ?? '')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { what: string; ok: boolean; detail: string });
    const seen = Object.fromEntries(lines.map((l) => [l.what, l]));
    // Its files: the copies it was given, nothing of the operator's, the home's or the job root's.
    expect(seen['own-copy']?.ok).toBe(true);
    expect(seen['operator-file']).toMatchObject({ ok: false });
    // The home and the job root exist inside the sandbox only as the folders leading to its own
    // job directory: no certs, config, logs or secrets, and no other job.
    expect(seen['oracle-home']?.detail).toBe('listed data');
    expect(seen['job-root']?.detail).toMatch(/^listed [0-9a-f]{32}$/u);
    // The network: nothing directly (its namespace has loopback only), nothing but the API through the proxy.
    expect(seen['direct-api']).toMatchObject({ ok: false });
    expect(seen['direct-host-loopback']).toMatchObject({ ok: false });
    expect(seen['proxy-control']).toMatchObject({ ok: false, detail: expect.stringContaining('EGRESS_DENIED') as unknown });
    expect(seen['proxy-host-loopback']).toMatchObject({ ok: false, detail: expect.stringContaining('EGRESS_DENIED') as unknown });
    expect(seen['proxy-private-name']).toMatchObject({ ok: false, detail: expect.stringContaining('EGRESS_DENIED') as unknown });
    expect(seen['api']).toMatchObject({ ok: true, detail: expect.stringContaining('notes summarised') as unknown });
    expect(hostReached).toEqual([]);
    // The API got one request, with the key (injected at spawn), the task and the copied notes.
    const requests = readFileSync(apiLog, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { server: string; key: string | null; body: string });
    expect(requests.map((r) => r.server)).toEqual(['api']);
    expect(requests[0]?.key).toBe(key);
    expect(requests[0]?.body).toContain('ship the proxy');
    // What it left comes back as data; the key it tried to hand back is redacted everywhere.
    const output = result.output as { files: { name: string; text: string }[]; writes: { path: string; status: string; tier: string; approval_id?: string }[] };
    expect(output.files.map((f) => f.name).sort()).toEqual(['answer.md', 'leak.txt']);
    expect(output.files.find((f) => f.name === 'answer.md')?.text).toBe('the stand-in model says: notes summarised\n');
    // Written back through the boundary as fs.writes of the same session, judged like any other:
    // the delegate's answer tainted the session, so each waits for a person and nothing is written yet.
    expect(output.writes.map((w) => [w.path, w.status, w.tier]).sort()).toEqual([
      [join(project, 'answer.md'), 'pending', 'T2'],
      [join(project, 'leak.txt'), 'pending', 'T2'],
    ]);
    expect(runtime.desk.list().filter((c) => c.state === 'pending').map((c) => (c.preview['args'] as { path?: string }).path).sort()).toEqual([join(project, 'answer.md'), join(project, 'leak.txt')]);
    expect(readdirSync(project).sort()).toEqual(['api-ca.pem', 'notes.md']);
    expect(JSON.stringify(runtime.desk.list())).not.toContain(key);
    expect(JSON.stringify(result)).not.toContain(key);
    expect(String(result.stdout)).toContain('KEY [REDACTED');
    // Every connection through the proxy is audited, the allowed one with its bytes.
    const egress = auditRecords(runtime.gate.home).filter((r) => r['kind'] === 'egress' && r['action_id'] === result.action_id);
    expect(egress.map((r) => [(r['detail'] as { host: string }).host, r['outcome']])).toEqual([
      [API_IP, 'EGRESS_DENIED'],
      ['127.0.0.1', 'EGRESS_DENIED'],
      ['localhost', 'EGRESS_DENIED'],
      [API_IP, 'ok'],
    ]);
    // The key is in no event, no audit line and no file of the home but the secret store itself
    // (the 0600 file store where no OS keyring is reachable).
    expect(JSON.stringify(events)).not.toContain(key);
    expect(filesHolding(runtime.gate.home, key).filter((f) => f !== join(runtime.gate.home, 'data', 'secrets.json'))).toEqual([]);
    expect(auditRecords(runtime.gate.home).find((r) => r['kind'] === 'succeeded' && r['action_id'] === result.action_id)).toBeDefined();
    expect(readdirSync(join(runtime.gate.home, 'data', 'jobs')).filter((d) => /^[0-9a-f]{32}$/u.test(d))).toEqual([]);
  }, 90_000);

  it('writes back as tainted even without a session, and refuses a task that would be read as an option', async () => {
    const result = await runtime.submit({ tool: 'agent.delegate', args: { description: 'again, no session', prompt: 'Summarise notes.md again', files: [join(project, 'notes.md'), join(project, 'api-ca.pem')], out_dir: project } }, 0, 'tester');
    const writes = (result.output as { writes?: { status: string; tier: string }[] } | undefined)?.writes ?? [];
    expect(writes.length).toBeGreaterThan(0);
    for (const w of writes) expect(w).toMatchObject({ status: 'pending', tier: 'T2' });
    expect(readdirSync(project).sort()).toEqual(['api-ca.pem', 'notes.md']);
    for (const prompt of ['--dangerously-skip-permissions', ' --settings=/tmp/x.json do it', '-p --permission-mode bypassPermissions']) {
      const refused = await runtime.submit({ tool: 'agent.delegate', args: { description: 'x', prompt } }, 0, 'tester');
      expect(refused.error?.code, prompt).toBe('ARG_SHAPE');
    }
  }, 90_000);

  it('refuses a policy whose delegate arguments skip the agent’s permission checks, in every spelling', async () => {
    const { loadPolicy } = await import('../../server/core/policy/load.js');
    const { LINUX } = await import('../../server/core/paths/flavor.js');
    for (const args of ['["--dangerously-skip-permissions"]', '["--permission-mode", "bypassPermissions"]', '["--permission-mode=bypassPermissions"]', '["--allow-dangerously-skip-permissions"]', '["--settings", "/tmp/s.json"]', '["--mcp-config=/tmp/m.json"]']) {
      const loaded = loadPolicy(`delegate:\n  program: /usr/bin/claude\n  args: ${args}\n  hosts: [api.anthropic.com]\n`, { flavor: LINUX, userHome: '/home/u' });
      expect(loaded.ok, args).toBe(false);
    }
    const keyed = loadPolicy('delegate:\n  program: /usr/bin/claude\n  key: { secret: k, env: NODE_OPTIONS }\n  hosts: [api.anthropic.com]\n', { flavor: LINUX, userHome: '/home/u' });
    expect(keyed.ok).toBe(false);
    const good = loadPolicy('delegate:\n  program: /usr/bin/claude\n  args: ["-p"]\n  hosts: [api.anthropic.com]\n', { flavor: LINUX, userHome: '/home/u' });
    expect(good.ok).toBe(true);
  });
});
