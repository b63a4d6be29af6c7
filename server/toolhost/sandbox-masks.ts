import { isUnder, relativeTo } from '../core/paths/canonical.js';
import { protectionOf, type CompiledPolicy } from '../core/policy/compile.js';
import { DirListings, walkListings } from '../adapters/agent/dir-listings.js';
import { probe } from '../adapters/agent/files.js';
import { tierRank } from '../../shared/tiers.js';

/**
 * The folders a package manager fills with other people's packages, whose fixtures (`.env`,
 * test keys) are theirs: a delete need not look inside one. Build output (dist, build, target,
 * .next) is not among them: a folder of that name may be anything, a whole project with its
 * `.env`, `.git` and hook settings included (red team, session 31).
 */
export const PACKAGE_FOLDERS: ReadonlySet<string> = new Set(['node_modules', 'bower_components', '.venv', 'venv', '.gradle']);

/**
 * Entries a job's tree may hold (outside package folders and masked ones) for ORACLE to mask it;
 * past it the job is refused. A Rust `target/` or a monorepo passes 100,000; the walks pause for
 * other agents and keep what they judged (dir-listings.ts), so a larger tree costs its own jobs
 * time (about 7 µs an entry on a first walk), not the gate's other answers.
 */
export const MAX_MASK_WALK = 400_000;

export interface SandboxView {
  /** Paths inside the bound tree the child must not see: deny_always, excludes, ORACLE's own. */
  readonly masks: readonly { readonly path: string; readonly kind: 'dir' | 'file' }[];
  /** Read-only roots nested in a read-write bind, re-bound read-only. */
  readonly readOnly: readonly string[];
}

/** Whether the gate would refuse every access to `path` (deny_always, ORACLE's own files, outside every root or excluded): what no agent is shown. */
export function hiddenByPolicy(gate: CompiledPolicy, path: string): boolean {
  return whyHidden(gate, path) !== undefined;
}

/** Why the policy hides `path` from every agent (and the rule that says so), or undefined when it does not. */
export function whyHidden(gate: CompiledPolicy, path: string): { readonly why: string; readonly rule: string } | undefined {
  const denied = gate.denied(path);
  if (denied !== undefined) return { why: `deny_always \`${denied.pattern}\``, rule: denied.rule };
  const guard = protectionOf(gate, path);
  if (guard !== undefined) return { why: 'ORACLE\'s own files', rule: guard.rule };
  const root = gate.roots.find((r) => isUnder(path, r.real, gate.host.flavor));
  if (root === undefined) return { why: 'outside every scope', rule: 'scopes' };
  const excluded = root.excluded(relativeTo(path, root.real));
  return excluded === undefined ? undefined : { why: `exclude \`${excluded}\` of ${root.rule}`, rule: root.rule };
}

/**
 * Why nobody may read `path` unasked: what the policy hides (whyHidden), or a tier rule that makes
 * an fs.read of it a person's call (T2 or above), which a search or a job would otherwise read
 * with no card (red team, session 33: `fs_search` printed lines of a file whose fs.read waited
 * for a person). The first tier rule for fs.read that matches decides, as for the read itself.
 */
export function whyUnread(gate: CompiledPolicy, path: string): { readonly why: string; readonly rule: string } | undefined {
  return whyHidden(gate, path) ?? whyReadAsks(gate, path);
}

/** The tier rule that makes an fs.read of `path` a person's call (T2 or above), if any. */
function whyReadAsks(gate: CompiledPolicy, path: string): { readonly why: string; readonly rule: string } | undefined {
  const scope = gate.roots.find((r) => isUnder(path, r.real, gate.host.flavor))?.scope;
  const rule = gate.tierRules.find((r) => r.tool === 'fs.read' && r.program === undefined && (r.scope === undefined || r.scope === scope) && r.pathMatches(path));
  return rule !== undefined && tierRank(rule.tier) >= tierRank('T2') ? { why: `reading it is ${rule.tier} (${rule.rule}): a person's call`, rule: rule.rule } : undefined;
}

/**
 * What a job may see of the tree it works in (SPEC §6): everything the gate itself would let the
 * agent touch there, nothing it would refuse. The `.git` directory stays visible to git itself
 * (its hooks and config are neutralised on every call). `incomplete`, saying why, when the tree is
 * too large to walk (more than `limit` entries, MAX_MASK_WALK unless told) or its top cannot be
 * read: the job is then refused, never half-masked.
 */
export async function sandboxView(gate: CompiledPolicy, bound: string, options: { readonly gitVisible: boolean; readonly limit?: number }): Promise<SandboxView | { readonly incomplete: string }> {
  const { flavor } = gate.host;
  const masks: { path: string; kind: 'dir' | 'file' }[] = [];
  const walk = await walkListings(
    judgedListings(gate),
    bound,
    (entry) => {
      // A link is not followed by the walk; what it reaches outside the bind is not there for the
      // job, and what it reaches inside is masked where it is.
      if (entry.kind === 'link' || entry.kind === 'other') return false;
      if (options.gitVisible && entry.name === '.git') return false;
      // What no agent may read unasked, a file whose read is a person's call included.
      if (entry.note.unread !== undefined) {
        masks.push({ path: entry.path, kind: entry.kind });
        return false;
      }
      // A package manager's folders are not walked (their `.env` and keys are packages' fixtures);
      // build output is: a `dist` or `build` may hold a copy of the project's `.env`, or a whole
      // project (red team, session 33: a job read dist/.env and build/id_rsa).
      return !PACKAGE_FOLDERS.has(entry.name);
    },
    { limit: options.limit ?? MAX_MASK_WALK, unreadable: 'skip' },
  );
  if ('incomplete' in walk) return walk;
  // A nested read-only root that is not there (not made yet, or moved away by an earlier job) has
  // nothing to protect; binding it would fail the sandbox, and every job in the tree with it (red
  // team, session 33). Only a folder is re-bound.
  const readOnly = gate.roots.filter((r) => r.mode === 'ro' && r.real !== bound && isUnder(r.real, bound, flavor) && probe(r.real) === 'dir').map((r) => r.real);
  return { masks, readOnly };
}

/** What the policy says of one entry of a tree by its path: hidden from every agent, and not read unasked. */
export interface Judged {
  readonly hidden: { readonly why: string; readonly rule: string } | undefined;
  readonly unread: { readonly why: string; readonly rule: string } | undefined;
}

const listingsByPolicy = new WeakMap<CompiledPolicy, DirListings<Judged>>();

/**
 * Folders' entries judged by one policy, kept while each folder is unchanged (dir-listings.ts): the
 * masks of every job and the planted-name check before and after it. A new policy is a new
 * CompiledPolicy, so nothing judged by the old one is used again.
 */
export function judgedListings(gate: CompiledPolicy): DirListings<Judged> {
  let listings = listingsByPolicy.get(gate);
  if (listings === undefined) {
    listings = new DirListings(
      (entry): Judged => {
        const hidden = whyHidden(gate, entry.path);
        return { hidden, unread: hidden ?? whyReadAsks(gate, entry.path) };
      },
      // Both walks pass over a file the policy says nothing of.
      { quiet: (judged) => judged.unread === undefined },
    );
    listingsByPolicy.set(gate, listings);
  }
  return listings;
}
