import { maxTier } from '../../../shared/tiers.js';
import { canonicalize } from '../paths/canonicalize.js';
import type { DecideContext } from './context.js';
import { refused, type Outcome } from './outcome.js';

/**
 * Paths hidden in a model-chosen argv (`git diff --no-index ~/.ssh/id_rsa`, `cp x /etc/y`,
 * `--out=../../z`): every argument, or `--opt=` value, that is absolute or climbs with `..` goes
 * through the same canonicaliser. Into deny_always or ORACLE's own files: denied. Outside the
 * scopes: a person must see it (at least T2). The sandbox is the second line, not the first.
 */
export function judgeArgvPaths(outcome: Extract<Outcome, { ok: true }>, argv: readonly string[], cwd: string | undefined, ctx: DecideContext): Outcome {
  let tier = outcome.tier;
  let escalated = false;
  const reasons = [...outcome.reasons];
  for (const value of argv.flatMap(candidates)) {
    if (!looksLikePath(value, ctx)) continue;
    const scoped = canonicalize(value, ctx.gate, { cwd, access: 'write' });
    if (scoped.ok) continue;
    if (scoped.code === 'PATH_DENY_ALWAYS') return refused('PATH_DENY_ALWAYS', scoped.rule, `argument \`${value}\`: ${scoped.reason}`);
    tier = maxTier(tier, 'T2');
    escalated = true;
    reasons.push(`argument \`${value}\` is not a path inside the scopes (${scoped.code}), so a person must see it`);
  }
  return escalated ? { ok: true, tier, rule: outcome.rule, reasons, floor: 'T2' } : outcome;
}

function candidates(token: string): string[] {
  const eq = token.indexOf('=');
  return token.startsWith('-') && eq > 0 ? [token.slice(eq + 1)] : [token];
}

function looksLikePath(value: string, ctx: DecideContext): boolean {
  if (value.startsWith('/') || value === '..' || /(?:^|[\\/])\.\.(?:[\\/]|$)/u.test(value)) return true;
  return ctx.gate.host.flavor.kind === 'win32' && /^(?:[A-Za-z]:|\\\\|\/\/)/u.test(value);
}
