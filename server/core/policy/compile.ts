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
  /** ORACLE's own home (policy, audit log, secrets): always denied to agents (SPEC §3). */
  readonly oracleHome: string;
  /** Windows only: expands 8.3 short names (SPEC §5 step 5); absent means they are refused. */
  readonly expandShortName?: ((path: string) => string | null) | undefined;
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
  readonly oracleHome: { readonly lexical: string; readonly real: string };
  readonly warnings: readonly string[];
}

export interface CompiledTierRule extends TierRule {
  readonly pathMatches: (path: string) => boolean;
}

export const ORACLE_HOME_RULE = 'deny_always.oracle_home';

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
      const matchers = root.exclude.map((pattern) => ({ pattern, test: glob(pattern, globOptions) }));
      const excluded = (relative: string) => matchers.find((m) => relative !== '' && m.test(relative))?.pattern;
      roots.push({ ...root, scope: scope.name, real: real.value, excluded });
    }
  }
  roots.sort((a, b) => b.real.length - a.real.length);
  const denyMatchers = policy.denyAlways.map((rule) => ({ rule, test: glob(rule.pattern, globOptions) }));
  const tierRules = policy.tiers.map((rule) => {
    const test = rule.path === undefined ? undefined : glob(rule.path, globOptions);
    return { ...rule, pathMatches: (path: string) => test === undefined || test(path) };
  });
  const home = canonicalHome(host);
  return {
    policy,
    host,
    roots,
    denied: (path) => denyMatchers.find((m) => m.test(path))?.rule,
    tierRules,
    oracleHome: home,
    warnings,
  };
}

/**
 * A pattern without a slash (`*.pem`) matches a base name anywhere, as in .gitignore; a pattern
 * with one matches the whole path. (picomatch's `basename` option would apply to both.)
 */
function glob(pattern: string, options: { dot: boolean; nocase: boolean; windows: boolean }): (path: string) => boolean {
  return picomatch(pattern, { ...options, basename: !pattern.includes('/') });
}

function canonicalHome(host: GateHost): { lexical: string; real: string } {
  const lexical = lexPath(host.oracleHome, { flavor: host.flavor });
  // An ORACLE home we cannot canonicalise protects everything: fail closed with the root itself.
  if (!lexical.ok) return { lexical: '/', real: '/' };
  const real = resolveReal(lexical.value, host.reader, host.flavor);
  return { lexical: lexical.value, real: real.ok ? real.value : lexical.value };
}

export function isOracleHome(compiled: CompiledPolicy, path: string): boolean {
  const { flavor } = compiled.host;
  return isUnder(path, compiled.oracleHome.lexical, flavor) || isUnder(path, compiled.oracleHome.real, flavor);
}
