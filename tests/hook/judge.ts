import { loadBashParser, parseBash } from '../../server/adapters/bash-parser.js';
import { nodeReadDir } from '../../server/adapters/glob-reader.js';
import { bashVerdict } from '../../server/core/hook/bash-actions.js';
import { mapToolCall, type HookPayload } from '../../server/core/hook/claude-code-map.js';
import { evaluate } from '../../server/core/decide/decide.js';
import type { DecideContext } from '../../server/core/decide/context.js';

/** What the hook would answer before asking anyone: allow, deny, ask (opaque), or person (needs approval). */
export type Outcome = 'allow' | 'deny' | 'ask' | 'person';

/** The hook's own logic (map, parse, analyse, decide; strictest wins), against a decide context; `home` as the hook's user home. */
export async function judgePayload(payload: HookPayload, ctx: DecideContext, home?: string): Promise<{ outcome: Outcome; reason: string }> {
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
    const verdict = bashVerdict(tree, { cwd, parse: await loadBashParser(), ...(home === undefined ? {} : { home }), ...(cwd.startsWith('/') ? { readDir: nodeReadDir } : {}) });
    if (verdict.kind === 'deny') return { outcome: 'deny', reason: verdict.reason };
    if (verdict.kind === 'ask') return { outcome: 'ask', reason: verdict.reason };
    actions = verdict.actions;
  }
  let outcome: Outcome = 'allow';
  const reasons: string[] = [];
  // What a search reaches below its folder is weighed by the running gate (toolhost/search-reach.ts), not here.
  for (const { search: _search, ...action } of actions) {
    const { decision } = evaluate({ ...action, cwd, agent: 'claude-code' }, ctx);
    reasons.push(`${action.tool}: ${decision.decision} ${decision.code ?? decision.tier} ${decision.reasons.join('; ')}`);
    if (decision.decision === 'deny') return { outcome: 'deny', reason: reasons.join(' | ') };
    if (decision.decision === 'needs-approval') outcome = 'person';
  }
  return { outcome, reason: reasons.join(' | ') };
}
