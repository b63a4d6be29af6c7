import { isUnderComparable } from '../paths/canonical.js';
import { comparable, type PathFlavor } from '../paths/flavor.js';
import { lexPath } from '../paths/lex.js';
import { resolveReal, type LinkReader } from '../paths/resolve.js';
import { compileGlob, firstMatch, type Glob, type GlobOptions } from './glob.js';
import { indexGlobs } from './glob-index.js';
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
  /** `lexical` and `real` in the host's comparison form (step 10), folded once here. */
  readonly comparableLexical: string;
  readonly comparableReal: string;
}

export interface CompiledRoot extends Root {
  readonly scope: string;
  /** The root after resolving links, which is what resolved paths are compared with. */
  readonly real: string;
  /** `path` and `real` in the host's comparison form (step 10), folded once here. */
  readonly comparablePath: string;
  readonly comparableReal: string;
  readonly excluded: (relative: string) => string | undefined;
}

export interface CompiledPolicy {
  readonly policy: Policy;
  readonly host: GateHost;
  /** Longest first, so the first root that contains a path is the one that wins (step 10). */
  readonly roots: readonly CompiledRoot[];
  /**
   * The root step 10 picks for a path in comparison form: the longest that contains it (the first
   * in `roots`), found through the path's own ancestors, so the cost does not grow with the policy.
   */
  readonly rootOf: (comparableReal: string) => CompiledRoot | undefined;
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
  const nocase = host.flavor.caseInsensitive;
  const globOptions: GlobOptions = { dot: true, nocase, windows: false };
  // What the policy keeps out (deny_always, a root's excludes) it keeps out in any letter case,
  // on every host: Linux has case-folding file systems too (FAT and exFAT drives, ext4 and f2fs
  // folders with casefold), where `.ENV` opens `.env`. Folding costs only names that differ from
  // a denied one by case alone.
  const keepOut: GlobOptions = { ...globOptions, nocase: true };
  const roots: CompiledRoot[] = [];
  for (const scope of policy.scopes) {
    for (const root of scope.roots) {
      const real = resolveReal(root.path, host.reader, host.flavor);
      if (!real.ok) {
        warnings.push(`${root.rule}: \`${root.path}\` is not used: ${real.reason}`);
        continue;
      }
      const globs = root.exclude.map((pattern) => compileGlob(pattern, keepOut, true));
      const excluded = (relative: string) => (relative === '' ? undefined : firstMatch(globs, relative.normalize('NFC'), true)?.pattern);
      const comparablePath = comparable(root.path, host.flavor);
      roots.push({ ...root, scope: scope.name, real: real.value, comparablePath, comparableReal: comparable(real.value, host.flavor), excluded });
    }
  }
  roots.sort((a, b) => b.real.length - a.real.length);
  // Stable sort: of roots at the same place the policy's first wins, as it does in `roots`.
  const byPlace = new Map<string, CompiledRoot>();
  for (const root of roots) if (!byPlace.has(root.comparableReal)) byPlace.set(root.comparableReal, root);
  const denyGlobs: (Glob & { readonly rule: DenyRule })[] = policy.denyAlways.map((rule) => ({ ...compileGlob(rule.pattern, keepOut), rule }));
  const denyIndex = indexGlobs(denyGlobs, true);
  // On macOS an NFD name opens the NFC file: compare both sides in NFC there.
  const nfc = (path: string): string => (host.flavor.normalizationInsensitive ? path.normalize('NFC') : path);
  const tierRules = policy.tiers.map((rule) => {
    const test = rule.path === undefined ? undefined : compileGlob(rule.path, globOptions).test;
    return { ...rule, pathMatches: (path: string) => test === undefined || test(path) };
  });

  return {
    policy,
    host,
    roots,
    rootOf: (path) => rootAmongAncestors(byPlace, path),
    denied: (path) => denyIndex.first(nfc(path))?.rule,
    tierRules,
    protections: host.protect.map((p) => compileProtection(p, host)),
    warnings,
  };
}

/**
 * The deepest of a path's ancestors (the path itself first) that is a root. A canonical path is its
 * root (`/`, `C:/`) and segments joined by `/`, so its ancestors are cut at each `/`, and the
 * bare root keeps its slash.
 */
function rootAmongAncestors(byPlace: ReadonlyMap<string, CompiledRoot>, path: string): CompiledRoot | undefined {
  const first = path.indexOf('/');
  for (let end = path.length; end > first; end = path.lastIndexOf('/', end - 1)) {
    const found = byPlace.get(path.slice(0, end));
    if (found !== undefined && isUnderComparable(path, found.comparableReal)) return found;
  }
  const bare = first === -1 ? undefined : byPlace.get(path.slice(0, first + 1));
  return bare !== undefined && isUnderComparable(path, bare.comparableReal) ? bare : undefined;
}

function compileProtection(protect: ProtectedPath, host: GateHost): CompiledProtection {
  const lexical = lexPath(protect.path, { flavor: host.flavor, expandShortName: host.expandShortName });
  const fold = (path: string) => comparable(path, host.flavor);
  // A protected path we cannot canonicalise (an unexpandable 8.3 name, a `$`) would protect
  // nothing; instead it protects everything, and the reason says why.
  if (!lexical.ok) {
    return { rule: protect.rule, lexical: protect.path, real: protect.path, everything: true, comparableLexical: fold(protect.path), comparableReal: fold(protect.path) };
  }
  const resolved = resolveReal(lexical.value, host.reader, host.flavor);
  const real = resolved.ok ? resolved.value : lexical.value;
  return { rule: protect.rule, lexical: lexical.value, real, everything: false, comparableLexical: fold(lexical.value), comparableReal: fold(real) };
}

/** The protection that covers `path`, if any. */
export function protectionOf(compiled: CompiledPolicy, path: string): CompiledProtection | undefined {
  const folded = comparable(path, compiled.host.flavor);
  for (const p of compiled.protections) if (p.everything || isUnderComparable(folded, p.comparableLexical) || isUnderComparable(folded, p.comparableReal)) return p;
  return undefined;
}

/** A protection that lies inside `path` (deleting a folder must not take ORACLE's home with it). */
export function protectionWithin(compiled: CompiledPolicy, path: string): CompiledProtection | undefined {
  const folded = comparable(path, compiled.host.flavor);
  for (const p of compiled.protections) if (p.everything || isUnderComparable(p.comparableLexical, folded) || isUnderComparable(p.comparableReal, folded)) return p;
  return undefined;
}
