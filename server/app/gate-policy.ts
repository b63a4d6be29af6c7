import { join, resolve } from 'node:path';
import { CAPABILITIES } from '../../shared/capabilities.js';
import type { DecideContext, GateMode, Pin } from '../core/decide/context.js';
import { lexPath } from '../core/paths/lex.js';
import { resolveReal } from '../core/paths/resolve.js';
import { compilePolicy, type CompiledPolicy } from '../core/policy/compile.js';
import { emptyPolicy, loadPolicy, type LoadOptions, type LoadResult, type PolicyIssue } from '../core/policy/load.js';
import type { Policy } from '../core/policy/types.js';
import { fileExists, readOperatorFile } from '../adapters/files.js';
import { hostFacts, packageRoot, resolveHome, sha256Hex, toCanonicalForm, type HostFacts } from '../adapters/host.js';
import { nodeLinkReader } from '../adapters/link-reader.js';
import { pinPrograms } from '../adapters/pin-programs.js';
import { CLEAN } from '../core/decide/taint.js';

/**
 * The policy a gate decides by, loaded for one home: which home, which policy file (read from
 * disk), the policy parsed and compiled against this host, and the programs it names pinned to
 * their files on PATH (I/O: file reads, realpath and PATH lookups). Used by `oracle serve`
 * (main.ts), the hook and the CLI, so all decide exactly alike.
 */
export interface GateState {
  readonly mode: GateMode;
  /** `sha256:<hex>` of the policy bytes, or null when the file could not be read. */
  readonly digest: string | null;
  readonly policyFile: string;
  readonly home: string;
  readonly errors: readonly PolicyIssue[];
  readonly warnings: readonly string[];
  readonly context: DecideContext;
}

export interface GateOptions {
  readonly home?: string | undefined;
  readonly policy?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  readonly host?: HostFacts;
  /** How the policy text becomes a policy: `loadPolicy`, or the headless hook's cache in front of it. */
  readonly loadPolicy?: (text: string, options: LoadOptions) => LoadResult;
}

/** `--home DIR`, else `ORACLE_HOME`, else the project root (SPEC §2). */
export { resolveHome };

/** `--policy FILE`, else the home's config/policy.yaml, else the built-in default. */
export function resolvePolicyFile(flag: string | undefined, home: string): string {
  if (flag !== undefined) return resolve(flag);
  const inHome = join(home, 'config', 'policy.yaml');
  return fileExists(inHome) ? inHome : join(packageRoot(), 'config', 'policy.yaml');
}

export function loadGatePolicy(options: GateOptions = {}): GateState {
  const env = options.env ?? process.env;
  const host = options.host ?? hostFacts();
  const home = resolveHome(options.home, env);
  const policyFile = resolvePolicyFile(options.policy, home);
  const reader = nodeLinkReader(host.platform);
  const protect = [
    { path: toCanonicalForm(home, host.platform), rule: 'deny_always.oracle_home' },
    { path: toCanonicalForm(policyFile, host.platform), rule: 'deny_always.policy_file' },
    { path: toCanonicalForm(packageRoot(), host.platform), rule: 'deny_always.oracle_install' },
  ];
  const gateHost = { flavor: host.flavor, reader, protect };
  const read = readOperatorFile(policyFile);
  let policy: Policy = emptyPolicy();
  let mode: GateMode = 'read-only';
  let errors: PolicyIssue[] = [];
  let warnings: string[] = [];
  let digest: string | null = null;
  const text = read.ok ? decodeUtf8(read.bytes) : undefined;
  if (!read.ok) {
    errors = [{ line: 0, column: 0, path: '', message: `cannot read \`${policyFile}\`: ${read.reason}` }];
  } else if (text === undefined) {
    digest = `sha256:${sha256Hex(read.bytes)}`;
    errors = [{ line: 0, column: 0, path: '', message: 'the policy is not valid UTF-8' }];
  } else {
    digest = `sha256:${sha256Hex(read.bytes)}`;
    const loaded = (options.loadPolicy ?? loadPolicy)(text, { flavor: host.flavor, userHome: host.userHome });
    warnings = loaded.warnings.map((w) => `${policyFile}:${w.line}:${w.column}: ${w.message}`);
    if (loaded.ok) {
      policy = loaded.policy;
      mode = 'normal';
    } else {
      errors = [...loaded.errors];
      policy = loaded.readOnly;
    }
  }
  const compiled: CompiledPolicy = compilePolicy(policy, gateHost);
  const pins = pinPrograms(policy.programs, { path: env['PATH'] ?? '', platform: host.platform, pathext: env['PATHEXT'] });
  const context: DecideContext = {
    gate: compiled,
    mode,
    pins,
    deployment: new Set(CAPABILITIES),
    principal: { name: 'local', capabilities: new Set(CAPABILITIES) },
    runtime: CLEAN,
    cwd: canonicalCwd(host, reader),
  };
  return { mode, digest, policyFile, home, errors, warnings: [...warnings, ...compiled.warnings, ...pinWarnings(pins)], context };
}

/**
 * What pinning refused (SPEC §6), said at start: the program pinned elsewhere or not at all, and
 * why; the listed programs this machine does not have, in one line (the shipped policy lists
 * cargo and go for every machine).
 */
function pinWarnings(pins: ReadonlyMap<string, Pin>): string[] {
  const absent = [...pins].filter(([, pin]) => !pin.ok && pin.absent === true).map(([name]) => name);
  const warnings = [...pins].flatMap(([name, pin]) => {
    if (pin.skipped === undefined) return [];
    return [pin.ok ? `programs.${name}: pinned to \`${pin.path}\`, not to ${pin.skipped.join(', nor to ')}` : `programs.${name}: not pinned: ${pin.reason}`];
  });
  if (absent.length > 0) warnings.push(`programs ${absent.join(', ')}: not on PATH, so agents cannot run ${absent.length === 1 ? 'it' : 'them'} (install, then restart the gate)`);
  return warnings;
}

/** Policy text as this host reads a policy file (its path flavor, `~`): a proposal is checked exactly as a reload would check it. */
export function parsePolicyText(text: string, host: HostFacts = hostFacts()): LoadResult {
  return loadPolicy(text, { flavor: host.flavor, userHome: host.userHome });
}

/** Where a policy change is written: the `--policy` file, else the home's own (never the built-in default). */
export function writablePolicyFile(flag: string | undefined, home: string): string {
  return flag !== undefined ? resolve(flag) : join(home, 'config', 'policy.yaml');
}

/** Policy text must be strict UTF-8 (STYLE 7); anything else is an invalid policy. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function canonicalCwd(host: HostFacts, reader: ReturnType<typeof nodeLinkReader>): string | undefined {
  const lexed = lexPath(toCanonicalForm(host.cwd, host.platform), { flavor: host.flavor });
  if (!lexed.ok) return undefined;
  const real = resolveReal(lexed.value, reader, host.flavor);
  return real.ok ? real.value : undefined;
}
