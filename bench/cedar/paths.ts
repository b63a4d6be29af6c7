import type { CompiledPolicy } from '../../server/core/policy/compile.js';
import { globBase } from '../../server/core/policy/glob.js';
import { isUnder } from '../../server/core/paths/canonical.js';
import { globToLike } from './glob.js';
import { any, likeLiteral, set, str, type CedarPolicy } from './text.js';
import { inGroup } from './tools.js';

/**
 * Scopes, excludes, deny_always and ORACLE's own files (SPEC §3, §5 steps 10–11) over the
 * canonical path of a request: `context.path` (lexical) and `context.real` (links resolved),
 * both computed before Cedar by the same canonicaliser the gate uses, since Cedar has no path
 * type, no normalisation and no file system. Scope is decided on `real`, deny rules on both.
 */
export interface PathPolicies {
  readonly policies: CedarPolicy[];
  /** deny_always and exclude patterns Cedar can only approximate (always more widely). */
  readonly inexact: string[];
}

export function pathPolicies(gate: CompiledPolicy): PathPolicies {
  const inexact: string[] = [];
  const scoped = inGroup('paths');
  const guarded = inGroup('paths.guarded');
  const writes = inGroup('paths.write');
  const policies: CedarPolicy[] = [];
  const { roots } = gate;

  // Step 10: a path under no root is invisible. ORACLE picks the longest root; Cedar checks the
  // same thing as "under some root", then lets each root's own rules yield to longer roots inside it.
  policies.push({ id: 'scopes', effect: 'forbid', action: scoped, when: 'context has real', unless: any(roots.map((r) => under('real', r.real))) });
  roots.forEach((root, i) => {
    const longer = any(roots.slice(0, i).filter((r) => isUnder(r.real, root.real, gate.host.flavor)).map((r) => under('real', r.real)));
    const governs = `context has real && ${under('real', root.real)}`;
    if (root.mode === 'ro') policies.push({ id: root.rule, effect: 'forbid', action: writes, when: governs, unless: longer });
    if (root.exclude.length > 0) {
      const patterns = root.exclude.flatMap((pattern) => {
        const real = globToLike(globBase(pattern, true), prefix(root.real));
        const lexical = globToLike(globBase(pattern, true), prefix(root.path));
        if (!real.exact) inexact.push(`${root.rule} exclude \`${pattern}\``);
        return [...real.patterns.map((p) => `context.real like "${p}"`), ...lexical.patterns.map((p) => `context.path like "${p}"`)];
      });
      policies.push({ id: `${root.rule}.exclude`, effect: 'forbid', action: scoped, when: `${governs} && ${any(patterns)}`, unless: longer });
    }
  });

  // Step 11: ORACLE's own home, policy file and installation; deleting a folder that holds one.
  for (const p of gate.protections) {
    if (p.everything) {
      policies.push({ id: p.rule, effect: 'forbid', action: guarded });
      continue;
    }
    const forms = [...new Set([p.lexical, p.real])];
    const hits = forms.flatMap((f) => [under('path', f), under('real', f)]);
    policies.push({ id: p.rule, effect: 'forbid', action: guarded, when: `context has real && ${any(hits)}` });
    const ancestors = [...new Set(forms.flatMap(ancestorsOf))];
    policies.push({
      id: `${p.rule}.within`,
      effect: 'forbid',
      action: inGroup('paths.delete'),
      when: `context has real && (${set(ancestors)}.contains(context.path) || ${set(ancestors)}.contains(context.real))`,
    });
  }
  for (const rule of gate.policy.denyAlways) {
    const like = globToLike(globBase(rule.pattern));
    if (!like.exact) inexact.push(`${rule.rule} \`${rule.pattern}\``);
    const hits = like.patterns.flatMap((p) => [`context.path like "${p}"`, `context.real like "${p}"`]);
    policies.push({ id: rule.rule, effect: 'forbid', action: guarded, when: `context has real && ${any(hits)}` });
  }
  return { policies, inexact };
}

/** `path` is `root` or inside it, on a segment boundary. */
function under(attribute: 'path' | 'real', root: string): string {
  if (root.endsWith('/')) return `context.${attribute} like "${likeLiteral(root)}*"`;
  return `(context.${attribute} == ${str(root)} || context.${attribute} like "${likeLiteral(root)}/*")`;
}

function prefix(root: string): string {
  return root.endsWith('/') ? root : `${root}/`;
}

/** `/var/oracle-home` → `/`, `/var`, `/var/oracle-home`: what a delete must not name. */
function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  const root = /^[A-Z]:\//u.test(path) ? path.slice(0, 3) : '/';
  out.push(root);
  const rest = path.slice(root.length);
  if (rest === '') return out;
  let at = root;
  for (const segment of rest.split('/')) {
    at = at === root ? root + segment : `${at}/${segment}`;
    out.push(at);
  }
  return out;
}
