/**
 * The closed set of capabilities (SPEC §3). A tool declares the ones it needs in its contract;
 * nothing can request one at run time.
 */
export const CAPABILITIES = [
  'fs.read',
  'fs.write',
  'fs.delete',
  'proc.spawn',
  'proc.kill',
  'net.egress',
  'input.synth',
  'sys.info',
  'sys.settings',
  'git.write',
  'secret.read',
  'agent.delegate',
  'term.write',
  /** Reading what an ORACLE terminal shows (term.read): foreign content, it taints the session. */
  'term.read',
] as const;

export type Capability = (typeof CAPABILITIES)[number];

const CAPABILITY_SET: ReadonlySet<string> = new Set(CAPABILITIES);

export function isCapability(value: unknown): value is Capability {
  return typeof value === 'string' && CAPABILITY_SET.has(value);
}

/** Capabilities a tainted session may not use without a person confirming (SPEC §4). */
export const TAINT_CONFIRM_CAPABILITIES: readonly Capability[] = ['net.egress', 'agent.delegate'];
