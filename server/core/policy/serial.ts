import type { Capability } from '../../../shared/capabilities.js';
import type { AgentPrincipal, DelegateRule, EgressHost, Policy, ProgramRule, TierRule } from './types.js';

/**
 * A loaded `Policy` as plain JSON and back, for the compiled-policy cache the headless hook reads
 * instead of parsing YAML on every tool call (SPEC §11). Only Sets and Maps need a shape of their
 * own; every other field is already plain data. The reader trusts its input as far as the cache's
 * integrity digest vouches for it (the cache checks that before calling `policyFromJson`), and still
 * refuses anything that is not the shape written here.
 */
export interface PolicyJson {
  readonly capabilities: readonly Capability[];
  readonly scopes: Policy['scopes'];
  readonly denyAlways: Policy['denyAlways'];
  readonly programs: readonly ProgramRule[];
  readonly programDefault: Policy['programDefault'];
  readonly egress: Policy['egress'];
  readonly tiers: Policy['tiers'];
  readonly agents: readonly { readonly name: string; readonly capabilities: readonly Capability[] }[];
  readonly delegate?: DelegateRule;
}

/** Plain data for JSON.stringify (which drops the optional fields that are undefined; read back below). */
export function policyToJson(policy: Policy): PolicyJson {
  return {
    capabilities: [...policy.capabilities],
    scopes: policy.scopes,
    denyAlways: policy.denyAlways,
    programs: [...policy.programs.values()],
    programDefault: policy.programDefault,
    egress: policy.egress,
    tiers: policy.tiers,
    agents: [...policy.agents.values()].map((a) => ({ name: a.name, capabilities: [...a.capabilities] })),
    ...(policy.delegate === undefined ? {} : { delegate: policy.delegate }),
  };
}

/** The policy `policyToJson` wrote, or undefined when `value` is not that shape. */
export function policyFromJson(value: unknown): Policy | undefined {
  if (!isRecord(value)) return undefined;
  const { capabilities, scopes, denyAlways, programs, programDefault, egress, tiers, agents, delegate } = value;
  if (!isStrings(capabilities) || !Array.isArray(scopes) || !Array.isArray(denyAlways) || !Array.isArray(programs) || !Array.isArray(tiers) || !Array.isArray(agents)) return undefined;
  if ((programDefault !== 'deny' && programDefault !== 'confirm') || !isRecord(egress) || !Array.isArray(egress['allow'])) return undefined;
  if (egress['default'] !== 'deny' && egress['default'] !== 'confirm') return undefined;
  const programMap = new Map<string, ProgramRule>();
  for (const p of programs) {
    if (!isRecord(p) || typeof p['name'] !== 'string') return undefined;
    const otherwise = p['otherwise'];
    if (otherwise !== undefined && otherwise !== 'deny' && otherwise !== 'confirm') return undefined;
    programMap.set(p['name'], { ...(p as unknown as ProgramRule), path: optional(p['path']), otherwise });
  }
  const agentMap = new Map<string, AgentPrincipal>();
  for (const a of agents) {
    if (!isRecord(a) || typeof a['name'] !== 'string' || !isStrings(a['capabilities'])) return undefined;
    agentMap.set(a['name'], { name: a['name'], capabilities: new Set(a['capabilities'] as Capability[]) });
  }
  const delegated = delegateFromJson(delegate);
  if (delegated === null) return undefined;
  return {
    ...(delegated === undefined ? {} : { delegate: delegated }),
    capabilities: new Set(capabilities as Capability[]),
    scopes: scopes as Policy['scopes'],
    denyAlways: denyAlways as Policy['denyAlways'],
    programs: programMap,
    programDefault,
    egress: { allow: (egress['allow'] as EgressHost[]).map((h) => ({ ...h, port: optional(h.port) })), default: egress['default'] },
    tiers: (tiers as TierRule[]).map((t) => ({ ...t, scope: optional(t.scope), path: optional(t.path), program: optional(t.program), why: optional(t.why) })),
    agents: agentMap,
  };
}

/** The delegate rule as written, undefined when absent, null when it is not that shape. */
function delegateFromJson(value: unknown): DelegateRule | undefined | null {
  if (value === undefined) return undefined;
  if (!isRecord(value) || typeof value['program'] !== 'string' || !isStrings(value['args']) || !Array.isArray(value['hosts']) || typeof value['timeoutS'] !== 'number') return null;
  const key = value['key'];
  if (key !== undefined && (!isRecord(key) || typeof key['secret'] !== 'string' || typeof key['env'] !== 'string')) return null;
  return {
    program: value['program'],
    args: value['args'],
    key: key === undefined ? undefined : { secret: key['secret'] as string, env: key['env'] as string },
    hosts: (value['hosts'] as EgressHost[]).map((h) => ({ ...h, port: optional(h.port) })),
    timeoutS: value['timeoutS'],
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const optional = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
