import { actionRequestSchema, type ActionRequest } from '../../../shared/action.js';
import { TAINT_CONFIRM_CAPABILITIES, type Capability } from '../../../shared/capabilities.js';
import { decisionFromTier, deny, type Decision } from '../../../shared/decision.js';
import { isTainting, type ProvenanceEntry } from '../../../shared/provenance.js';
import { bumpTier, maxTier, tierRank, type Tier } from '../../../shared/tiers.js';
import { canonicalize, lexAndResolve } from '../paths/canonicalize.js';
import type { ScopedPath } from '../paths/scope.js';
import { lookupTool, type ToolContract } from '../tools/registry.js';
import { baseTier } from './base-tier.js';
import { missingCapability, type Ceiling } from './capabilities.js';
import { landingPaths } from './landing.js';
import type { DecideContext } from './context.js';
import type { Outcome } from './outcome.js';
import { hiddenCode } from '../redact/hidden-code.js';

/** A decision together with what it was about: the tool and its canonical arguments. */
export interface Evaluation {
  readonly decision: Decision;
  readonly tool: string | null;
  /** Arguments after canonicalisation (resolved paths, pinned program, normalised URL). */
  readonly args: Readonly<Record<string, unknown>> | null;
  /** The scoped paths the decision rests on, which the executor re-resolves (step 12). */
  readonly paths: readonly ScopedPath[];
  /** The session the action named, if any. */
  readonly session?: string;
  /** What the action said its session read (its `provenance` list), for the taint ledger. */
  readonly read?: readonly ProvenanceEntry[];
}

const READ_ONLY_CEILING: ReadonlySet<Capability> = new Set(['fs.read']);

/** The agents the shipped config/policy.yaml names, whose entry a person can copy from there. */
const SHIPPED_AGENTS: ReadonlySet<string> = new Set(['claude-code', 'mcp', 'reader']);

/** How to give an agent the policy never names a ceiling (it may do nothing until then). */
const addAgentHint = (name: string): string =>
  `; the policy has no \`principals.agents.${name}\`, so that agent may do nothing: add it with the capabilities it may use${SHIPPED_AGENTS.has(name) ? ' (the shipped config/policy.yaml has one)' : ''}`;

/** The hint, when the ceiling that refused is an agent's the policy never names (and so empty). */
function unlistedAgentHint(ceiling: Ceiling | undefined, ctx: DecideContext): string {
  if (ceiling === undefined || !ceiling.name.startsWith('principal ') || ceiling.capabilities.size > 0) return '';
  const name = ceiling.name.slice('principal '.length);
  return ctx.gate.policy.agents.has(name) ? '' : addAgentHint(name);
}

/** `decide(action, context) → Decision` (SPEC §4). */
export function decide(action: unknown, ctx: DecideContext): Decision {
  return evaluate(action, ctx).decision;
}

/**
 * Total: any JSON value in, a decision out, never a throw. An error anywhere denies with
 * EVALUATION_ERROR; a rule that errored is never skipped (unlike Cedar, which skips it).
 */
export function evaluate(action: unknown, ctx: DecideContext): Evaluation {
  try {
    const evaluated = evaluateUnsafe(action, ctx);
    return ctx.mode === 'read-only' ? withReadOnlyCause(evaluated) : evaluated;
  } catch (e) {
    const detail = e instanceof Error ? e.message : 'unknown error';
    return { decision: deny('EVALUATION_ERROR', 'gate', [`the evaluation failed, so the gate denied: ${detail}`]), tool: null, args: null, paths: [] };
  }
}

/**
 * In read-only mode the policy in force is what could be salvaged from a file that failed to load:
 * a top-level typo leaves no scopes, so every path is "outside the scopes". A refusal then says why
 * the gate is read-only, or the person hunts for a scope that is right there in the file.
 */
function withReadOnlyCause(evaluated: Evaluation): Evaluation {
  const { decision } = evaluated;
  if (decision.decision !== 'deny' || decision.reasons.includes(READ_ONLY_CAUSE)) return evaluated;
  return { ...evaluated, decision: { ...decision, reasons: [...decision.reasons, READ_ONLY_CAUSE] } };
}

const READ_ONLY_CAUSE = 'the gate runs read-only because its policy file failed to load (only reads inside the scopes it could still read are allowed); `oracle policy check` shows the errors';

function evaluateUnsafe(action: unknown, ctx: DecideContext): Evaluation {
  // HALT is deny-all before anything else is looked at (SPEC §8).
  if (ctx.mode === 'halted') return none(deny('HALTED', 'mode.halted', ['the gate is halted; a person must resume it']));
  const request = actionRequestSchema.safeParse(action);
  if (!request.success) return none(deny('INPUT_INVALID', 'input', [firstIssue(request.error.issues)]));
  // Who asked and what it read hold whatever the tool: the session's taint takes it in (SPEC §4).
  const { session } = request.data;
  const read = Array.isArray(request.data.provenance) ? request.data.provenance : undefined;
  const asked = { ...(session === undefined ? {} : { session }), ...(read === undefined ? {} : { read }) };
  const contract = lookupTool(request.data.tool);
  if (contract === undefined) return { ...none(deny('TOOL_UNKNOWN', 'registry', [`\`${request.data.tool}\` is not a tool in the registry`])), ...asked };
  const parsed = contract.args.safeParse(request.data.args);
  const tool = contract.name;
  if (!parsed.success) return { decision: deny('INPUT_INVALID', 'registry', [firstIssue(parsed.error.issues)]), tool, args: null, paths: [], ...asked };
  const args: Record<string, unknown> = { ...parsed.data };
  const about: About = { tool, args, paths: [], session, read };

  const agent = request.data.agent === undefined ? undefined : ctx.gate.policy.agents.get(request.data.agent);
  if (request.data.agent !== undefined && agent === undefined) {
    return evaluation(about, deny('PRINCIPAL_UNKNOWN', 'principals.agents', [`agent \`${request.data.agent}\` is not in the policy${addAgentHint(request.data.agent)}`]));
  }

  // Paths first: deny_always and the other immutable denials win before any capability check.
  const cwd = workingDirectory(request.data.cwd, ctx);
  if (!cwd.ok) return evaluation(about, deny(cwd.code, cwd.rule, [cwd.reason]));
  // A process runs where the action says it is: exec's working directory is the action's own cwd
  // when args name none, and it is scope-checked like any path argument.
  if ((tool === 'exec.run' || tool === 'exec.run_with_secrets') && args['cwd'] === undefined && request.data.cwd !== undefined) args['cwd'] = request.data.cwd;
  const scoped = scopePaths(contract, args, cwd.value, ctx);
  if (!scoped.ok) return evaluation(about, deny(scoped.code, scoped.rule, [scoped.reason]));
  const landed = landingPaths(tool, args, scoped.value, ctx);
  if (landed.kind === 'refused') return evaluation(about, deny(landed.code, landed.rule, [`${contract.paths[0]?.key ?? 'path'} ${landed.reason}`]));
  if (landed.kind !== 'unchanged') {
    scoped.value.splice(0, scoped.value.length, ...landed.paths);
    if (landed.kind === 'inside') args[contract.paths[0]?.key ?? 'to'] = landed.paths[0]?.real;
  }
  about.paths = scoped.value;

  const readOnly = ctx.mode === 'read-only';
  // An action may name its agent only to narrow: the caller's own ceiling always applies.
  const ceilings: Ceiling[] = [
    { name: 'deployment', capabilities: ctx.deployment },
    { name: `principal ${ctx.principal.name}`, capabilities: ctx.principal.capabilities },
    ...(agent === undefined ? [] : [{ name: `principal ${agent.name}`, capabilities: agent.capabilities }]),
    { name: readOnly ? 'read-only mode' : 'policy', capabilities: readOnly ? READ_ONLY_CEILING : ctx.gate.policy.capabilities },
  ];
  const missing = missingCapability(contract.capabilities, ceilings);
  if (missing !== undefined) {
    const reason = `${missing.capability} is not granted by the ${missing.ceiling} ceiling${unlistedAgentHint(ceilings.find((c) => c.name === missing.ceiling), ctx)}`;
    return evaluation(about, readOnly ? deny('POLICY_READ_ONLY', 'mode.read-only', [reason]) : deny('CAPABILITY_DENIED', 'capabilities', [reason]));
  }

  const primary = scoped.value[0];
  const base = baseTier({ tool, args, primary, paths: scoped.value, cwd: cwd.value, ctx });
  Object.assign(args, base.extra);
  if (!base.outcome.ok) return evaluation(about, deny(base.outcome.code, base.outcome.rule, base.outcome.reasons));
  const beyond = missingCapability(base.requires ?? [], ceilings);
  if (beyond !== undefined) {
    const reason = `these arguments need ${beyond.capability}, which the ${beyond.ceiling} ceiling does not grant`;
    return evaluation(about, readOnly ? deny('POLICY_READ_ONLY', 'mode.read-only', [reason]) : deny('CAPABILITY_DENIED', 'capabilities', [reason]));
  }
  const ruled = applyTierRules(base.outcome, { tool, args, primary, paths: scoped.value, cwd: cwd.value, ctx });
  const final = applyTaint(ruled, contract, request.data, ctx);
  if (!final.ok) return evaluation(about, deny(final.code, final.rule, final.reasons));
  if (readOnly && final.tier !== 'T0') {
    return evaluation(about, deny('POLICY_READ_ONLY', 'mode.read-only', [READ_ONLY_CAUSE, ...final.reasons]));
  }
  const decided = decisionFromTier(final.tier, final.rule, final.reasons);
  // A person approves what the card shows: none of it may hide behind a secret's marker.
  const hidden = decided.decision === 'needs-approval' ? hiddenCode(args) : undefined;
  if (hidden !== undefined) return evaluation(about, deny('SECRET_SHAPE', 'card', [`${hidden}: the card would hide it; put a real secret in ORACLE's secret store and name it (exec.run_with_secrets, net.fetch secrets)`]));
  return evaluation(about, decided);
}

/** What an evaluation is about, filled in as the steps learn it. */
interface About {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  paths: readonly ScopedPath[];
  readonly session: string | undefined;
  readonly read: readonly ProvenanceEntry[] | undefined;
}

function evaluation(about: About, decision: Decision): Evaluation {
  const { tool, args, paths, session, read } = about;
  return { decision, tool, args, paths, ...(session === undefined ? {} : { session }), ...(read === undefined ? {} : { read }) };
}

function none(decision: Decision): Evaluation {
  return { decision, tool: null, args: null, paths: [] };
}

function firstIssue(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const issue = issues[0];
  if (issue === undefined) return 'the action is malformed';
  const at = issue.path.length === 0 ? 'the action' : `\`${issue.path.map(String).join('.')}\``;
  return `${at}: ${issue.message}`;
}

type Step<T> = { ok: true; value: T } | { ok: false; code: Parameters<typeof deny>[0]; rule: string; reason: string };

/** The action's own cwd, canonicalised and resolved; else the pinned one (SPEC §5 step 6). */
function workingDirectory(raw: string | undefined, ctx: DecideContext): Step<string | undefined> {
  if (raw === undefined) return { ok: true, value: ctx.cwd };
  const resolved = lexAndResolve(raw, ctx.gate.host, { flavor: ctx.gate.host.flavor });
  if (!resolved.ok) return { ok: false, code: resolved.code, rule: 'cwd', reason: `cwd: ${resolved.reason}` };
  return { ok: true, value: resolved.value.real };
}

/** Every path argument through SPEC §5 steps 1–11; the canonical (resolved) path replaces it. */
function scopePaths(contract: ToolContract, args: Record<string, unknown>, cwd: string | undefined, ctx: DecideContext): Step<ScopedPath[]> {
  const out: ScopedPath[] = [];
  for (const spec of contract.paths) {
    const value = args[spec.key];
    if (value === undefined && spec.optional === true) continue;
    const raws: unknown[] = spec.list === true && Array.isArray(value) ? value : [value];
    const reals: string[] = [];
    for (const raw of raws) {
      const scoped = canonicalize(raw, ctx.gate, { cwd, access: spec.access });
      if (!scoped.ok) return { ok: false, code: scoped.code, rule: scoped.rule, reason: `${spec.key}: ${scoped.reason}` };
      out.push(scoped.value);
      reals.push(scoped.value.real);
    }
    args[spec.key] = spec.list === true ? reals : reals[0];
  }
  return { ok: true, value: out };
}

/** The policy's tier rules, first match wins; load.ts already refused any below a tool's floor. */
function applyTierRules(base: Extract<Outcome, { ok: true }>, input: Parameters<typeof baseTier>[0]): Extract<Outcome, { ok: true }> {
  const program = input.args['program'];
  const match = input.ctx.gate.tierRules.find(
    (rule) =>
      (rule.tool === input.tool || (rule.tool === 'fs.write' && lookupTool(input.tool)?.writesContent === true)) &&
      (rule.scope === undefined || input.paths.some((p) => p.root.scope === rule.scope)) &&
      (rule.program === undefined || rule.program === program) &&
      (rule.path === undefined || (input.primary !== undefined && rule.pathMatches(input.primary.real))),
  );
  if (match === undefined) return base;
  const why = match.why === undefined ? '' : `: ${match.why}`;
  const tier = maxTier(match.tier, base.floor ?? 'T0');
  // A rule the floor overrides must not read as if it set the tier.
  const said = tier === match.tier ? `${match.rule} sets ${tier}${why}` : `${match.rule} asks for ${match.tier}${why}, but this action is never below ${tier}`;
  return { ok: true, tier, rule: match.rule, reasons: [...base.reasons, said] };
}

/**
 * Taint (SPEC §4): sticky per session, and a tainted action is bumped one tier above T0
 * (T1→T2, T2→T3, T3→T4) and never uses net.egress or agent.delegate without a person.
 * INVARIANT: this never lowers a tier.
 */
function applyTaint(outcome: Extract<Outcome, { ok: true }>, contract: ToolContract, request: ActionRequest, ctx: DecideContext): Outcome {
  // The everyday case (nothing read, nothing tainted) allocates nothing.
  if (!ctx.runtime.tainted && request.tainted !== true && ctx.runtime.provenance.length === 0 && request.provenance === undefined) return outcome;
  const sources = [...ctx.runtime.provenance, ...provenanceOf(request)].filter((p) => isTainting(p.kind));
  const tainted = ctx.runtime.tainted || request.tainted === true || sources.length > 0;
  if (!tainted) return outcome;
  let tier: Tier = bumpTier(outcome.tier);
  if (contract.capabilities.some((c) => TAINT_CONFIRM_CAPABILITIES.includes(c))) tier = maxTier(tier, 'T2');
  // The session and the request can both name the same source (a report then an action): once each.
  const read = [...new Set(sources.map((s) => s.source).filter((s) => s !== ''))];
  // T0 is never bumped: a read of a tainted session says nothing of it (it had said "T0 stays T0"
  // on every read, noise to a person reading the reasons: Claude Code probe, session 36).
  if (tier === 'T0') return outcome;
  const reason = read.length > 0 ? `proposed after reading ${read.join(', ')} (content from outside the person's projects)` : 'proposed in a session that read content from outside the person\'s projects';
  // Said as what it comes to: `is on the allow list; …: T1 → T2` had read as a contradiction.
  const who = tier === 'T2' ? 'a person decides' : tier === 'T3' ? 'only the desktop, with a typed phrase' : 'never run';
  const reasons = [...outcome.reasons, `${reason}, so ${outcome.tier} becomes ${tier}: ${who}`];
  if (tierRank(tier) >= tierRank('T4')) return { ok: false, code: 'TIER_T4', rule: outcome.rule, reasons };
  return { ok: true, tier, rule: outcome.rule, reasons };
}

function provenanceOf(request: ActionRequest): ProvenanceEntry[] {
  const p = request.provenance;
  if (p === undefined) return [];
  if (typeof p === 'string') return [{ kind: p, source: '' }];
  return p;
}
