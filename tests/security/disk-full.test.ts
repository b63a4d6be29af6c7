import { closeSync, fstatSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { runOracle } from '../cli/run-oracle.js';
import { call, type Reply } from '../fixtures/https-client.js';
import { cannotMountTmpfs, mountTmpfs, skipping, unmount } from '../fixtures/privileges.js';

/** Fills the file system holding `path` to the last page, then gives back `spare` bytes. */
function fill(path: string, spare: number): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    // ENOSPC: full
  }
  ftruncateSync(fd, Math.max(0, fstatSync(fd).size - spare));
  closeSync(fd);
}

function records(home: string): Record<string, unknown>[] {
  const dir = join(home, 'logs', 'audit');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return []; // a torn tail is not a record
      }
    });
}

/**
 * Issue 14, "disk full": the home on a 2 MiB tmpfs, filled while agents act. No action is
 * acknowledged as executed without its terminal record; health says degraded while the log
 * cannot be written; once space is back the gate is normal again without a restart, the torn
 * tail is repaired with a record, and `oracle audit verify` finds the chain intact.
 */
describe.skipIf(skipping('the gate on a full disk', cannotMountTmpfs()))('the gate on a full disk', () => {
  let root = '';
  let mounted = '';
  let running: Running | undefined;
  let ca = '';
  let token = '';
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'oracle-disk-full-'));
    mounted = join(root, 'mnt');
    mkdirSync(mounted);
    mountTmpfs(mounted, '2m');
    mkdirSync(join(root, 'projects'));
    for (let i = 0; i < 40; i++) writeFileSync(join(root, 'projects', `f${String(i)}.txt`), `file ${String(i)}\n`);
    const policy = join(root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write] }\n`);
    running = await startServer({ home: join(mounted, 'home'), policy, port: 0 });
    ca = readFileSync(join(mounted, 'home', 'certs', 'ca.crt'), 'utf8');
    token = (await running.credentials.issue('ag', 'claude-code')).token;
  });
  afterAll(async () => {
    await running?.close().catch(() => undefined);
    unmount(mounted);
    rmSync(root, { recursive: true, force: true });
  });

  const act = (i: number): Promise<Reply> =>
    call(`${running?.url ?? ''}/api/v1/actions?wait=0`, { ca, method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ tool: 'fs.read', args: { path: join(root, 'projects', `f${String(i % 40)}.txt`) } }) });
  const health = async (): Promise<Record<string, unknown>> => (await call(`${running?.url ?? ''}/api/v1/health`, { ca })).body;

  it('acknowledges nothing without its terminal record, says degraded, and recovers without a restart', async () => {
    const home = join(mounted, 'home');
    expect(await health()).toMatchObject({ mode: 'normal', audit: { writable: true } });
    fill(join(mounted, 'filler'), 12 * 1024);
    // 60 agents' reads at once: the first records fit, then the disk is full mid-flight.
    const answers = new Map<number, Reply>();
    const inflight = Array.from({ length: 60 }, (_, i) =>
      act(i).then((r) => {
        answers.set(i, r);
        return r;
      }),
    );
    for (let i = 0; i < 100 && (await health())['mode'] !== 'degraded'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await health()).toMatchObject({ mode: 'degraded', audit: { writable: false, reason: expect.stringMatching(/ENOSPC|no space/iu) as unknown } });
    // Now take the last free page too. A retry may still fit a record into the slack of the log's
    // last page (and is then honestly back to normal for a moment); the next refusal says degraded.
    fill(join(mounted, 'filler-2'), 0);
    let refused: Reply | undefined;
    for (let i = 0; i < 200 && refused === undefined; i++) {
      const answer = await act(i);
      if (answer.body['executed'] !== true) refused = answer;
    }
    expect(refused?.body).toMatchObject({ executed: false, error: { code: 'AUDIT_WRITE_FAILED' } });
    expect(await health()).toMatchObject({ mode: 'degraded', audit: { writable: false } });
    // Everything answered so far: executed only with its terminal record durable in the log.
    const log = records(home);
    const terminal = new Set(log.filter((r) => r['kind'] === 'succeeded' || r['kind'] === 'failed').map((r) => r['action_id']));
    const early = [...answers.values()];
    expect(early.length).toBeGreaterThan(0);
    for (const answer of early) {
      if (answer.body['executed'] === true) expect(terminal.has(answer.body['action_id'])).toBe(true);
      else expect(answer.body).toMatchObject({ executed: false, error: { code: 'AUDIT_WRITE_FAILED' } });
    }
    expect(early.some((a) => a.body['executed'] !== true)).toBe(true);

    rmSync(join(mounted, 'filler'));
    rmSync(join(mounted, 'filler-2'));
    for (let i = 0; i < 100 && (await health())['mode'] !== 'normal'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await health()).toMatchObject({ mode: 'normal', audit: { writable: true } });
    // The ones that ran and waited for their record are answered now, each with its record.
    const all = await Promise.all(inflight);
    const after = records(home);
    const done = new Set(after.filter((r) => r['kind'] === 'succeeded' || r['kind'] === 'failed').map((r) => r['action_id']));
    for (const answer of all) if (answer.body['executed'] === true) expect(done.has(answer.body['action_id'])).toBe(true);
    // Each outage ended with its repair record, naming why and how much was refused meanwhile.
    const repairs = after.filter((r) => r['kind'] === 'audit.repair');
    expect(repairs.length).toBeGreaterThan(0);
    for (const repair of repairs) expect(repair).toMatchObject({ outcome: 'recovered', detail: { reason: expect.stringMatching(/ENOSPC|no space/iu) as unknown, refused: expect.any(Number) as unknown } });
    expect((await act(2)).body).toMatchObject({ executed: true });

    // Claude Code's hook while the disk is full: a Bash call of several parts, whose first
    // decision record fails while the gate is still judging the second (fault probe, session 37:
    // that rejection went unhandled and the gate exited). The gate refuses and stays up.
    fill(join(mounted, 'filler'), 0);
    const hook = (command: string) =>
      call(`${running?.url ?? ''}/api/v1/hooks/claude-code`, {
        ca,
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify({ session_id: 's', cwd: join(root, 'projects'), hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `tu-${command.length}` }),
      });
    for (const command of ['echo hi > f.txt', 'echo hi > g.txt', 'cat f1.txt > f4.txt && cat f5.txt > f6.txt']) {
      const answer = await hook(command);
      expect(JSON.stringify(answer.body)).toMatch(/"permissionDecision":"deny"/u);
    }
    expect((await health())['mode']).toBe('degraded');
    rmSync(join(mounted, 'filler'));
    for (let i = 0; i < 100 && (await health())['mode'] !== 'normal'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await health()).toMatchObject({ mode: 'normal' });
    await running?.close();
    running = undefined;
    const verified = await runOracle(['audit', 'verify', '--home', home]);
    expect(verified.stdout + verified.stderr).not.toMatch(/TORN_TAIL|BROKEN|MISMATCH/u);
    expect(verified.code).toBe(0);
  });
});
