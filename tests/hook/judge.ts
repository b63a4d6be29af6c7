import { loadBashParser, parseBash } from '../../server/adapters/bash-parser.js';
import { nodeReadDir } from '../../server/adapters/glob-reader.js';
import { bashVerdict } from '../../server/core/hook/bash-actions.js';
import { mapToolCall, type GateAction, type HookPayload } from '../../server/core/hook/claude-code-map.js';
import { npxWithoutDownload } from '../../server/core/hook/npx-rewrite.js';
import { evaluate } from '../../server/core/decide/decide.js';
import type { ActionFacts, DecideContext } from '../../server/core/decide/context.js';
import { existsFrom, gitPrints } from '../../server/core/decide/git-prints.js';
import { hiddenInPrinted } from '../../server/core/decide/git-printed-names.js';
import { spawnSync } from 'node:child_process';

/** What the hook would answer before asking anyone: allow, deny, ask (opaque), or person (needs approval). */
export type Outcome = 'allow' | 'deny' | 'ask' | 'person';

/** The hook's own logic (map, parse, analyse, decide; strictest wins), against a decide context; `home` as the hook's user home. */
export async function judgePayload(payload: HookPayload, ctx: DecideContext, home?: string): Promise<{ outcome: Outcome; reason: string; updatedCommand?: string }> {
  const mapped = mapToolCall(payload, home);
  if (mapped.kind === 'allow') return { outcome: 'allow', reason: mapped.reason };
  if (mapped.kind === 'deny') return { outcome: 'deny', reason: mapped.reason };
  // Beyond the policy's data: one card for a person (or Claude Code's prompt when no gate runs).
  if (mapped.kind === 'person') return { outcome: 'person', reason: mapped.reason };
  let actions = mapped.kind === 'actions' ? mapped.actions : [];
  const cwd = typeof payload.cwd === 'string' ? payload.cwd : '/';
  if (mapped.kind === 'bash') {
    const tree = await parseBash(mapped.command);
    if ('error' in tree) return { outcome: 'ask', reason: tree.error };
    // As the hook does: globs are expanded in the (real) working folder.
    const how = { cwd, parse: await loadBashParser(), ...(home === undefined ? {} : { home }), ...(cwd.startsWith('/') ? { readDir: nodeReadDir } : {}) };
    const verdict = bashVerdict(tree, how);
    if (verdict.kind === 'deny') return { outcome: 'deny', reason: verdict.reason };
    if (verdict.kind === 'ask') return { outcome: 'ask', reason: verdict.reason };
    actions = verdict.actions;
    // As the hook does: `npx NAME` is offered as `npx --yes=false NAME`, taken when that runs unasked.
    const rewritten = npxWithoutDownload(tree);
    const other = rewritten === undefined ? undefined : await parseBash(rewritten);
    const alternative = other === undefined || 'error' in other ? undefined : bashVerdict(other, how);
    if (rewritten !== undefined && alternative?.kind === 'actions') {
      const original = decideAll(actions, cwd, ctx);
      const instead = decideAll(alternative.actions, cwd, ctx);
      return original.outcome !== 'allow' && instead.outcome === 'allow' ? { ...instead, updatedCommand: rewritten } : original;
    }
  }
  return decideAll(actions, cwd, ctx);
}

function decideAll(actions: readonly GateAction[], cwd: string, ctx: DecideContext): { outcome: Outcome; reason: string } {
  let outcome: Outcome = 'allow';
  const reasons: string[] = [];
  // What a search reaches below its folder is weighed by the running gate (toolhost/search-reach.ts), not here.
  for (const { search: _search, ...action } of actions) {
    const facts = gitPrintedFacts(action, cwd, ctx);
    const { decision } = evaluate({ ...action, cwd, agent: 'claude-code' }, facts === undefined ? ctx : { ...ctx, facts });
    reasons.push(`${action.tool}: ${decision.decision} ${decision.code ?? decision.tier} ${decision.reasons.join('; ')}`);
    if (decision.decision === 'deny') return { outcome: 'deny', reason: reasons.join(' | ') };
    if (decision.decision === 'needs-approval') outcome = 'person';
  }
  return { outcome, reason: reasons.join(' | ') };
}

/**
 * As a running gate looks up (toolhost/git-printed.ts), with the test's own git outside any
 * sandbox: what a git command that prints stored text would print of the files the policy hides.
 */
function gitPrintedFacts(action: GateAction, cwd: string, ctx: DecideContext): ActionFacts | undefined {
  const args = action.args as { program?: unknown; args?: unknown; cwd?: unknown };
  if (action.tool !== 'exec.run' || args.program !== 'git' || !Array.isArray(args.args)) return undefined;
  const dir = typeof args.cwd === 'string' ? args.cwd : cwd;
  const query = gitPrints(args.args.map(String), existsFrom(dir, ctx.gate.host.reader));
  if (query === undefined || 'unclear' in query) return undefined;
  if (query.asks.length === 0) return { gitPrinted: { hidden: [] } };
  const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, encoding: 'utf8' });
  const outputs: string[] = [];
  for (const ask of query.asks) {
    const asked = spawnSync('git', ['-c', 'core.quotePath=false', '--no-pager', ...ask], { cwd: dir, encoding: 'utf8' });
    if (query.output === 'names' && asked.status === 1 && asked.stdout === '' && asked.stderr === '') continue;
    if (top.status !== 0 || asked.status !== 0) return { gitPrinted: { unsure: `git: ${asked.stderr.trim()}` } };
    outputs.push(asked.stdout);
  }
  return { gitPrinted: hiddenInPrinted(outputs, query, (name) => ctx.gate.denied(`${top.stdout.trim()}/${name}`) !== undefined) };
}
