import picomatch from 'picomatch';
import { isUnder } from '../paths/canonical.js';
import type { PathFlavor } from '../paths/flavor.js';
import { lexPath } from '../paths/lex.js';
import { resolveReal, type LinkReader } from '../paths/resolve.js';
import type { DenyRule, Policy, Root, TierRule } from './types.js';

/** What the gate needs from its host to turn a policy into matchers. */
export interface GateHost {
  readonly flavor: PathFlavor;
  readonly reader: LinkReader;
  /**
   * Paths always denied to agents, whatever the policy says (SPEC §3, §1.3): ORACLE's own home
   * (audit log, certificates, secrets), the policy file in force and ORACLE's installation.
   */
  readonly protect: readonly ProtectedPath[];
  /** Windows only: expands 8.3 short names (SPEC §5 step 5); absent means they are refused. */
  readonly expandShortName?: ((path: string) => string | null) | undefined;
}

export interface ProtectedPath {
  readonly path: string;
  /** The rule name decisions report, e.g. `deny_always.oracle_home`. */
  readonly rule: string;
}

/** A protected path in both forms; `everything` when it could not be canonicalised (fail closed). */
export interface CompiledProtection {
  readonly rule: string;
  readonly lexical: string;
  readonly real: string;
  readonly everything: boolean;
}

export interface CompiledRoot extends Root {
  readonly scope: string;
  /** The root after resolving links, which is what resolved paths are compared with. */
  readonly real: string;
  readonly excluded: (relative: string) => string | undefined;
}

export interface CompiledPolicy {
  readonly policy: Policy;
  readonly host: GateHost;
  /** Longest first, so the first root that contains a path is the one that wins (step 10). */
  readonly roots: readonly CompiledRoot[];
  readonly denied: (path: string) => DenyRule | undefined;
  /** The policy's tier rules in file order, each with its path glob compiled. */
  readonly tierRules: readonly CompiledTierRule[];
  readonly protections: readonly CompiledProtection[];
  readonly warnings: readonly string[];
}

export interface CompiledTierRule extends TierRule {
  readonly pathMatches: (path: string) => boolean;
}

/**
 * Resolves every root once, at load, with the same canonicaliser as action paths, and compiles
 * the globs. A root that cannot be resolved is dropped with a warning: it can only deny.
 */
export function compilePolicy(policy: Policy, host: GateHost): CompiledPolicy {
  const warnings: string[] = [];
  const globOptions = { dot: true, nocase: host.flavor.caseInsensitive, windows: false } as const;
  const roots: CompiledRoot[] = [];
  for (const scope of policy.scopes) {
    for (const root of scope.roots) {
      const real = resolveReal(root.path, host.reader, host.flavor);
      if (!real.ok) {
        warnings.push(`${root.rule}: \`${root.path}\` is not used: ${real.reason}`);
        continue;
      }
      const matchers = root.exclude.map((pattern) => ({ pattern, test: glob(pattern, globOptions, true) }));
      const excluded = (relative: string) => matchers.find((m) => relative !== '' && m.test(relative.normalize('NFC')))?.pattern;
      roots.push({ ...root, scope: scope.name, real: real.value, excluded });
    }
  }
  roots.sort((a, b) => b.real.length - a.real.length);
  const denyMatchers = policy.denyAlways.map((rule) => ({ rule, test: glob(rule.pattern, globOptions) }));
  // On macOS an NFD name opens the NFC file: compare both sides in NFC there.
  const nfc = (path: string): string => (host.flavor.normalizationInsensitive ? path.normalize('NFC') : path);
  const tierRules = policy.tiers.map((rule) => {
    const test = rule.path === undefined ? undefined : glob(rule.path, globOptions);
    return { ...rule, pathMatches: (path: string) => test === undefined || test(path) };
  });

  return {
    policy,
    host,
    roots,
    denied: (path) => denyMatchers.find((m) => m.test(nfc(path)))?.rule,
    tierRules,
    protections: host.protect.map((p) => compileProtection(p, host)),
    warnings,
  };
}

type GlobOptions = { readonly dot: boolean; readonly nocase: boolean; readonly windows: boolean };

/**
 * Policy globs, the way people write them (SPEC §3 writes `.ssh`, `.git/hooks`, `*.env`):
 * - an absolute pattern matches from the root; any other pattern matches at any depth
 *   (`.ssh` means `** /.ssh`), except an exclude containing a `/`, which is anchored at its root
 *   as in .gitignore;
 * - whatever a pattern matches, everything inside it matches too: a denied directory denies its
 *   contents;
 * - parentheses are literal (`C:/Program Files (x86)`), and a leading `!` is not a negation.
 */
function glob(pattern: string, options: GlobOptions, relativeToRoot = false): (path: string) => boolean {
  const p = pattern.normalize('NFC').replace(/^(?:\.\/)+/u, '').replace(/[()]/gu, '\\$&').replace(/\/+$/u, '');
  let base: string;
  if (relativeToRoot) base = p.includes('/') ? p.replace(/^\/+/u, '') : `**/${p}`;
  else if (/^(?:\/|[A-Za-z]:\/)/u.test(p) || p.startsWith('**/')) base = p;
  else base = `**/${p}`;
  return picomatch(base.endsWith('/**') ? [base] : [base, `${base}/**`], { ...options, nonegate: true });
}

function compileProtection(protect: ProtectedPath, host: GateHost): CompiledProtection {
  const lexical = lexPath(protect.path, { flavor: host.flavor, expandShortName: host.expandShortName });
  // A protected path we cannot canonicalise (an unexpandable 8.3 name, a `$`) would protect
  // nothing; instead it protects everything, and the reason says why.
  if (!lexical.ok) return { rule: protect.rule, lexical: protect.path, real: protect.path, everything: true };
  const real = resolveReal(lexical.value, host.reader, host.flavor);
  return { rule: protect.rule, lexical: lexical.value, real: real.ok ? real.value : lexical.value, everything: false };
}

/** The protection that covers `path`, if any. */
export function protectionOf(compiled: CompiledPolicy, path: string): CompiledProtection | undefined {
  const { flavor } = compiled.host;
  return compiled.protections.find((p) => p.everything || isUnder(path, p.lexical, flavor) || isUnder(path, p.real, flavor));
}

/** A protection that lies inside `path` (deleting a folder must not take ORACLE's home with it). */
export function protectionWithin(compiled: CompiledPolicy, path: string): CompiledProtection | undefined {
  const { flavor } = compiled.host;
  return compiled.protections.find((p) => p.everything || isUnder(p.lexical, path, flavor) || isUnder(p.real, path, flavor));
}
