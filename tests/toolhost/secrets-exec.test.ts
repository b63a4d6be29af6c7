import { prepareAction } from '../../server/toolhost/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../server/core/decide/decide.js';
import type { Runtime } from '../../server/app/runtime.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';

/** Named secrets reach a child only through exec.run_with_secrets, and never its output. */
describe('exec.run_with_secrets', () => {
  let tree: TempTree;
  let runtime: Runtime;
  const value = 'sk-live-QmF4ZTY0IGRhdGEgd2l0aCBlbm91Z2g';
  beforeAll(async () => {
    tree = tempTree('oracle-secrets-');
    tree.dir('projects/app');
    runtime = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  env: { allow_args_matching: ["*"] }\n  node: { allow_args_matching: ["-e *"] }\n`);
    await runtime.toolhost.env.secrets?.set('deploy_token', value);
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });

  const action = (secrets: Record<string, string>) => ({ tool: 'exec.run_with_secrets', args: { program: 'env', args: [], cwd: `${tree.root}/projects/app`, secrets } });
  const phone = { id: 'dev_phone', kind: 'device' as const, approveT2: true, approveT3: false };
  /** Submits, lets a phone approve the card it produced, and returns the lifecycle's result. */
  async function approved(a: unknown) {
    const submitted = runtime.submit(a, 5000);
    for (let i = 0; i < 100; i++) {
      const card = runtime.desk.list().find((c) => c.state === 'pending');
      if (card !== undefined) {
        await runtime.desk.answer(card.approval_id, { approver: phone, verdict: 'approve', nonce: card.nonce, argHash: card.arg_hash });
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return submitted;
  }

  it('always needs a person, and the card names the secrets', async () => {
    const judged = evaluate(action({ DEPLOY_TOKEN: 'deploy_token' }), runtime.gate.context);
    expect(judged.decision).toMatchObject({ decision: 'needs-approval', tier: 'T2' });
    expect(judged.decision.reasons.at(-1)).toBe('the program receives the secrets deploy_token as DEPLOY_TOKEN');
    expect((await runtime.run(action({ DEPLOY_TOKEN: 'deploy_token' }))).error?.code).toBe('APPROVAL_REQUIRED');
  });

  it('shows the person which secret goes into which variable (names, redacted as text only)', async () => {
    const submitted = runtime.submit(action({ DEPLOY_TOKEN: 'deploy_token', OTHER: 'AKIAABCDEFGHIJKLMNOP' }), 5000);
    let card: ReturnType<Runtime['desk']['list']>[number] | undefined;
    for (let i = 0; i < 100 && card === undefined; i++) {
      card = runtime.desk.list().find((c) => c.state === 'pending');
      if (card === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    if (card === undefined) throw new Error('no card was shown');
    expect((card.preview as { args: Record<string, unknown> }).args['secrets']).toEqual({ DEPLOY_TOKEN: 'deploy_token', OTHER: '[REDACTED:aws-access-key-id]' });
    await runtime.desk.answer(card.approval_id, { approver: phone, verdict: 'deny', nonce: card.nonce, argHash: card.arg_hash });
    expect((await submitted).executed).toBe(false);
  });

  it('once approved, puts the value only in the named variable and redacts it from the output', async () => {
    const result = await approved(action({ DEPLOY_TOKEN: 'deploy_token' }));
    expect(result.executed).toBe(true);
    expect(result.stdout).toMatch(/^DEPLOY_TOKEN=\[REDACTED:/mu);
    expect(result.stdout).not.toContain(value);
    expect(result.secrets_read).toEqual(['deploy_token']);
  });

  it('shows no start of a value that the output cap cut partway', async () => {
    // 40 bytes a line: the capture (1 MiB and a 64 KiB margin) ends 32 characters into a value,
    // and the redacted text, a short marker for each value, is far under the cap.
    const script = "process.stdout.write((process.env.DEPLOY_TOKEN + '\\n\\n').repeat(30000))";
    const result = await approved({ tool: 'exec.run_with_secrets', args: { program: 'node', args: ['-e', script], cwd: `${tree.root}/projects/app`, secrets: { DEPLOY_TOKEN: 'deploy_token' } } });
    expect(result.executed).toBe(true);
    expect(result.truncated).toBe(true);
    const stdout = String(result.stdout);
    expect(stdout.length).toBeLessThan(1024 * 1024);
    expect(stdout).not.toContain(value.slice(0, 8));
    expect(stdout).toMatch(/\]\n\n$/u);
  });

  it('refuses a missing secret, and variables that change how programs load', async () => {
    expect((await approved(action({ X_TOKEN: 'nope' }))).error?.code).toBe('SECRET_MISSING');
    for (const variable of ['LD_PRELOAD', 'PATH', 'NODE_OPTIONS', 'GIT_SSH_COMMAND', 'BASH_ENV', 'lower']) {
      expect(evaluate(action({ [variable]: 'deploy_token' }), runtime.gate.context).decision.code, variable).toBe('INPUT_INVALID');
    }
  });

  it('never executes needs-approval with a forged approval id', async () => {
    const judged = evaluate(action({ DEPLOY_TOKEN: 'deploy_token' }), runtime.gate.context);
    const forged = await runtime.toolhost.boundary.execute(prepareAction('exec.run_with_secrets', judged.args ?? {}, { actionId: 'f', paths: judged.paths, decision: judged.decision, approvalId: 'ap_forged' }));
    expect(forged.result).toMatchObject({ ok: false, error: { code: 'APPROVAL_UNKNOWN' } });
  });

  it('is not available to an agent without secret.read', () => {
    const narrowed = { ...action({ DEPLOY_TOKEN: 'deploy_token' }), agent: 'none' };
    expect(evaluate(narrowed, runtime.gate.context).decision.code).toBe('PRINCIPAL_UNKNOWN');
    const spawnOnly = { ...runtime.gate.context, principal: { name: 'spawner', capabilities: new Set(['proc.spawn'] as const) } };
    expect(evaluate(action({ DEPLOY_TOKEN: 'deploy_token' }), spawnOnly).decision.code).toBe('CAPABILITY_DENIED');
  });
});
