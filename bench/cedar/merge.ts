import { policyCondition, policyText, type CedarPolicy } from './text.js';

/**
 * Two ways to hand the same rules to Cedar. One policy per ORACLE rule keeps the reasons (Cedar
 * names the policies that decided, as ORACLE names its rule). Cedar evaluates every policy of
 * the set on every request, at a cost per policy, so the fastest faithful form is one permit
 * and one forbid, each the OR of its rules: same decisions, reasons lost. The bench measures
 * both and compares decide() with the faster.
 */
export function onePolicyPerRule(policies: readonly CedarPolicy[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of policies) {
    if (p.id in out) throw new TypeError(`two Cedar policies are named \`${p.id}\``);
    out[p.id] = policyText(p);
  }
  return out;
}

export function mergedByEffect(policies: readonly CedarPolicy[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const effect of ['permit', 'forbid'] as const) {
    const conditions = policies.filter((p) => p.effect === effect).map(policyCondition);
    if (conditions.length > 0) out[effect] = policyText({ id: effect, effect, when: balancedOr(conditions) });
  }
  return out;
}

/** `a || b || …` as a balanced tree: cedar-wasm evaluates a long left-leaning chain recursively and overflows its stack. */
function balancedOr(conditions: readonly string[]): string {
  if (conditions.length === 1) return conditions[0] ?? 'false';
  const half = Math.ceil(conditions.length / 2);
  return `(${balancedOr(conditions.slice(0, half))}) || (${balancedOr(conditions.slice(half))})`;
}
