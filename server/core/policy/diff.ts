import type { Policy, ProgramRule } from './types.js';

/**
 * What a policy change does, in policy terms (issue 16): which paths, programs, hosts and agents
 * gain or lose what, one line each, so a person activating a candidate reads the effect, not a
 * YAML diff. `widens` marks the changes that need the typed phrase: an agent's ceiling grows, or a
 * deny_always entry goes.
 */
export interface PolicyChange {
  readonly effect: 'gains' | 'loses' | 'changes';
  readonly what: string;
  /** Needs the desktop's typed phrase to activate. */
  readonly widens: boolean;
}

const grammar = (p: ProgramRule): string =>
  [
    ...p.allow.map((g) => `allow ${g.text}`),
    ...p.confirm.map((g) => `confirm ${g.text}`),
    ...p.deny.map((g) => `deny ${g.text}`),
    ...p.argPatterns.map((a) => `args ${a.pattern}`),
    ...(p.otherwise === undefined ? [] : [`anything else ${p.otherwise}`]),
    ...(p.path === undefined ? [] : [`path ${p.path}`]),
  ].join(', ') || 'no arguments';

const delegateText = (p: Policy): string | undefined => {
  const d = p.delegate;
  if (d === undefined) return undefined;
  const hosts = d.hosts.map((h) => `${h.host}${h.port === undefined ? '' : `:${h.port}`}`).join(', ');
  const key = d.key === undefined ? 'no key' : `secret ${d.key.secret} as ${d.key.env}`;
  return `${[d.program, ...d.args].join(' ')} (${key}; hosts ${hosts}; ${String(d.timeoutS)} s)`;
};

export function diffPolicies(from: Policy, to: Policy): PolicyChange[] {
  const out: PolicyChange[] = [];
  const add = (effect: PolicyChange['effect'], what: string, widens = false): void => {
    out.push({ effect, what, widens });
  };
  // Paths: every root by path, with its mode and exclusions.
  const roots = (p: Policy) => new Map(p.scopes.flatMap((s) => s.roots.map((r) => [r.path, `${r.mode}${r.exclude.length === 0 ? '' : ` except ${r.exclude.join(', ')}`} (scope ${s.name})`] as const)));
  const [rootsFrom, rootsTo] = [roots(from), roots(to)];
  for (const [path, how] of rootsTo) {
    const before = rootsFrom.get(path);
    if (before === undefined) add('gains', `path ${path}: ${how}`);
    else if (before !== how) add('changes', `path ${path}: ${before} → ${how}`);
  }
  for (const [path, how] of rootsFrom) if (!rootsTo.has(path)) add('loses', `path ${path}: was ${how}`);
  // deny_always: an entry that goes opens what it kept shut.
  const denyFrom = new Set(from.denyAlways.map((d) => d.pattern));
  const denyTo = new Set(to.denyAlways.map((d) => d.pattern));
  for (const d of denyTo) if (!denyFrom.has(d)) add('gains', `deny_always ${d}: now always refused`);
  for (const d of denyFrom) if (!denyTo.has(d)) add('loses', `deny_always ${d}: no longer always refused`, true);
  // Programs, by name, with their grammar.
  for (const [name, rule] of to.programs) {
    const before = from.programs.get(name);
    if (before === undefined) add('gains', `program ${name}: ${grammar(rule)}`);
    else if (grammar(before) !== grammar(rule)) add('changes', `program ${name}: ${grammar(before)} → ${grammar(rule)}`);
  }
  for (const name of from.programs.keys()) if (!to.programs.has(name)) add('loses', `program ${name}`);
  if (from.programDefault !== to.programDefault) add('changes', `an unlisted program: ${from.programDefault} → ${to.programDefault}`);
  // Egress hosts.
  const hosts = (p: Policy) => new Set(p.egress.allow.map((h) => `${h.host}${h.port === undefined ? '' : `:${h.port}`}`));
  const [hostsFrom, hostsTo] = [hosts(from), hosts(to)];
  for (const h of hostsTo) if (!hostsFrom.has(h)) add('gains', `host ${h}: allowed`);
  for (const h of hostsFrom) if (!hostsTo.has(h)) add('loses', `host ${h}: no longer allowed`);
  if (from.egress.default !== to.egress.default) add('changes', `an unlisted host: ${from.egress.default} → ${to.egress.default}`);
  // The policy's own ceiling (`capabilities:`, absent: all of them) bounds every agent: growing it
  // widens what agents may do as surely as an agent's own ceiling does (SPEC §3).
  const ceilingGained = [...to.capabilities].filter((c) => !from.capabilities.has(c));
  const ceilingLost = [...from.capabilities].filter((c) => !to.capabilities.has(c));
  if (ceilingGained.length > 0) add('gains', `policy capabilities: ${ceilingGained.join(', ')}`, true);
  if (ceilingLost.length > 0) add('loses', `policy capabilities: ${ceilingLost.join(', ')}`);
  // The delegate agent runs a program of the policy's choosing with a secret and its own hosts:
  // a new or changed one is a widening.
  const [delegateFrom, delegateTo] = [delegateText(from), delegateText(to)];
  if (delegateFrom === undefined && delegateTo !== undefined) add('gains', `delegate ${delegateTo}`, true);
  else if (delegateFrom !== undefined && delegateTo === undefined) add('loses', `delegate ${delegateFrom}`);
  else if (delegateFrom !== delegateTo) add('changes', `delegate ${delegateFrom ?? ''} → ${delegateTo ?? ''}`, true);
  // Agents: a ceiling that grows is the widening that needs the phrase.
  for (const [name, agent] of to.agents) {
    const before = from.agents.get(name)?.capabilities;
    const gained = [...agent.capabilities].filter((c) => before === undefined || !before.has(c));
    const lost = before === undefined ? [] : [...before].filter((c) => !agent.capabilities.has(c));
    if (before === undefined) add('gains', `agent ${name}: ${[...agent.capabilities].join(', ') || 'nothing'}`, agent.capabilities.size > 0);
    else {
      if (gained.length > 0) add('gains', `agent ${name}: ${gained.join(', ')}`, true);
      if (lost.length > 0) add('loses', `agent ${name}: ${lost.join(', ')}`);
    }
  }
  for (const name of from.agents.keys()) if (!to.agents.has(name)) add('loses', `agent ${name}: every capability`);
  // Tier rules, by what they say.
  const tiers = (p: Policy) => new Set(p.tiers.map((t) => `${t.tool}${t.path === undefined ? '' : ` ${t.path}`}${t.program === undefined ? '' : ` ${t.program}`}${t.scope === undefined ? '' : ` in ${t.scope}`} → ${t.tier}`));
  const [tiersFrom, tiersTo] = [tiers(from), tiers(to)];
  for (const t of tiersTo) if (!tiersFrom.has(t)) add('gains', `tier rule ${t}`);
  for (const t of tiersFrom) if (!tiersTo.has(t)) add('loses', `tier rule ${t}`);
  return out;
}
