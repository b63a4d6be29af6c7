import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../server/core/decide/decide.js';
import type { Runtime } from '../../server/runtime.js';
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
    runtime = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  env: { allow_args_matching: ["*"] }\n`);
    await runtime.toolhost.env.secrets?.set('deploy_token', value);
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });

  const action = (secrets: Record<string, string>) => ({ tool: 'exec.run_with_secrets', args: { program: 'env', args: [], cwd: `${tree.root}/projects/app`, secrets } });

  it('always needs a person, and the card names the secrets', async () => {
    const judged = evaluate(action({ DEPLOY_TOKEN: 'deploy_token' }), runtime.gate.context);
    expect(judged.decision).toMatchObject({ decision: 'needs-approval', tier: 'T2' });
    expect(judged.decision.reasons.at(-1)).toBe('the program receives the secrets deploy_token as DEPLOY_TOKEN');
    expect((await runtime.run(action({ DEPLOY_TOKEN: 'deploy_token' }))).error?.code).toBe('APPROVAL_REQUIRED');
  });

  it('once approved, puts the value only in the named variable and redacts it from the output', async () => {
    const judged = evaluate(action({ DEPLOY_TOKEN: 'deploy_token' }), runtime.gate.context);
    const executed = await runtime.toolhost.boundary.execute({ actionId: 't', tool: 'exec.run_with_secrets', args: judged.args ?? {}, paths: judged.paths, decision: judged.decision, approvalId: 'ap_test' });
    expect(executed.result.ok).toBe(true);
    expect(executed.result.stdout).toMatch(/^DEPLOY_TOKEN=\[REDACTED:/mu);
    expect(executed.result.stdout).not.toContain(value);
    expect(executed.result.secrets_read).toEqual(['deploy_token']);
  });

  it('refuses a missing secret, and variables that change how programs load', async () => {
    const judged = evaluate(action({ X_TOKEN: 'nope' }), runtime.gate.context);
    const executed = await runtime.toolhost.boundary.execute({ actionId: 't2', tool: 'exec.run_with_secrets', args: judged.args ?? {}, paths: judged.paths, decision: judged.decision, approvalId: 'ap_test' });
    expect(executed.result.error?.code).toBe('SECRET_MISSING');
    for (const variable of ['LD_PRELOAD', 'PATH', 'NODE_OPTIONS', 'GIT_SSH_COMMAND', 'BASH_ENV', 'lower']) {
      expect(evaluate(action({ [variable]: 'deploy_token' }), runtime.gate.context).decision.code, variable).toBe('INPUT_INVALID');
    }
  });

  it('is not available to an agent without secret.read', () => {
    const narrowed = { ...action({ DEPLOY_TOKEN: 'deploy_token' }), agent: 'none' };
    expect(evaluate(narrowed, runtime.gate.context).decision.code).toBe('PRINCIPAL_UNKNOWN');
    const spawnOnly = { ...runtime.gate.context, principal: { name: 'spawner', capabilities: new Set(['proc.spawn'] as const) } };
    expect(evaluate(action({ DEPLOY_TOKEN: 'deploy_token' }), spawnOnly).decision.code).toBe('CAPABILITY_DENIED');
  });
});
