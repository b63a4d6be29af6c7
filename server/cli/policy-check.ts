import type { Writable } from 'node:stream';
import type { GateState } from '../app/gate-policy.js';

/** `oracle policy check [FILE]`: the digest, the mode, every error with its line (SPEC §12). */
export function reportPolicy(gate: GateState, out: Writable): number {
  out.write(`policy: ${gate.policyFile}\n`);
  out.write(`digest: ${gate.digest ?? 'none (unreadable)'}\n`);
  out.write(`mode: ${gate.mode}\n`);
  for (const e of gate.errors) {
    const where = e.line > 0 ? `${gate.policyFile}:${e.line}:${e.column}` : gate.policyFile;
    out.write(`error: ${where}: ${e.message}${e.path === '' ? '' : ` (${e.path})`}\n`);
  }
  for (const w of gate.warnings) out.write(`warning: ${w}\n`);
  if (gate.errors.length === 0) for (const w of missingIntegrations(gate)) out.write(`warning: ${w}\n`);
  out.write(gate.errors.length === 0 ? 'ok\n' : `invalid: ${gate.errors.length} error(s); the gate would run read-only\n`);
  return gate.errors.length === 0 ? 0 : 1;
}

/** The agents ORACLE integrates itself; a policy without their ceiling denies every call they make. */
const INTEGRATED_AGENTS = [
  ['claude-code', '`oracle hook claude-code` (Claude Code)'],
  ['mcp', '`oracle mcp`'],
] as const;

function missingIntegrations(gate: GateState): string[] {
  const agents = gate.context.gate.policy.agents;
  return INTEGRATED_AGENTS.filter(([name]) => !agents.has(name)).map(
    ([name, what]) => `no \`principals.agents.${name}\`: every call through ${what} is denied; add it with the capabilities that agent may use (the shipped config/policy.yaml has one)`,
  );
}

/** The loud line every surface prints when the gate is not running the policy as written. */
export function modeBanner(gate: GateState): string | undefined {
  if (gate.mode !== 'read-only') return undefined;
  const first = gate.errors[0];
  const why = first === undefined ? '' : `: ${first.line > 0 ? `line ${first.line}: ` : ''}${first.message}`;
  return `ORACLE IS IN READ-ONLY MODE: the policy ${gate.policyFile} is invalid (${gate.errors.length} error(s))${why}. Run \`oracle policy check\`.`;
}
