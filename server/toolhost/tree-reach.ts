import { probe } from '../adapters/agent/files.js';
import { walkEveryEntry } from '../adapters/agent/tree-walk.js';
import { basename, dirname, isAbsolute } from 'node:path';
import { canonicalize } from '../core/paths/canonicalize.js';
import { isUnder } from '../core/paths/canonical.js';
import type { CompiledPolicy } from '../core/policy/compile.js';
import type { Evaluation } from '../core/decide/decide.js';
import { judgedListings, MAX_MASK_WALK, PACKAGE_FOLDERS, whyHidden, whyUnread } from './sandbox-masks.js';
import { walkListings } from '../adapters/agent/dir-listings.js';

/**
 * What changing a whole folder does to what the policy keeps out. The decision judges the folder's
 * own path, but a pattern that names a file by its parent (`** /.docker/config.json`) does not
 * match the parent: moving `.docker` to `docker` made its file readable, and moving a folder onto
 * `.claude` planted a settings.json (helper-15, session 27). So a tree change may not change what
 * the policy hides:
 * - nothing hidden becomes visible (a move or copy whose landing is not hidden too) or goes (a
 *   delete of a folder holding it);
 * - nothing lands where the policy hides (a move or copy of a visible entry);
 * - no read-only root inside is moved or deleted, and none below the destination is written into.
 * What a package manager's folder (node_modules …) holds is a package's own fixtures: a delete
 * does not look inside one (moving them still may not make them visible). Links are entries (a link named
 * settings.json plants as well as a file), never followed. Past MAX_TREE_WALK entries, a folder
 * that cannot be read, or a check stopped by HALT, the answer is `unknown`: the caller refuses or
 * asks a person, never allows.
 */
export type TreeChange =
  | { readonly kind: 'delete'; readonly path: string }
  | { readonly kind: 'move' | 'copy'; readonly from: string; readonly to: readonly string[] };

export type TreeVerdict = { readonly kind: 'ok' } | { readonly kind: 'refused'; readonly rule: string; readonly reason: string } | { readonly kind: 'unknown'; readonly reason: string };

/**
 * Entries below a folder ORACLE looks through before it is moved, copied or deleted, as for a
 * job's tree (MAX_MASK_WALK): a Rust `target/` passes 100,000. The walks give way to other agents
 * as they go and a delete's walk keeps what it judged (dir-listings.ts), so a large folder costs
 * its own action time, not every other agent's answer (session 35: a delete of a 60,000-entry
 * folder had held the gate for the whole walk, at the decision and again when it ran).
 */
export const MAX_TREE_WALK = MAX_MASK_WALK;

const OK: TreeVerdict = { kind: 'ok' };
const POLICY_CHANGED: TreeVerdict = { kind: 'unknown', reason: 'the policy changed while ORACLE looked through the folder; ask again' };

/**
 * A link moved or copied keeps its target's text, so a relative one points somewhere else where it
 * lands (`../..` two folders further up: red team, session 31). It is judged as the link it
 * becomes there: leading into what the policy hides, refused; out of every scope, unknown.
 */
function relinked(gate: CompiledPolicy, link: string, landing: string): TreeVerdict | undefined {
  const entry = gate.host.reader.entry(link);
  if (entry.kind !== 'link' || isAbsolute(entry.target)) return undefined;
  const there = canonicalize(entry.target, gate, { cwd: dirname(landing), access: 'read' });
  if (there.ok) return undefined;
  const why = `\`${link}\` is a link to \`${entry.target}\`, which from \`${landing}\` leads somewhere else: ${there.reason}`;
  return there.code === 'PATH_DENY_ALWAYS' ? { kind: 'refused', rule: there.rule, reason: why } : { kind: 'unknown', reason: why };
}

/**
 * `signal` (the caller gone, HALT in flight) and `halted` stop the walk, which is then `unknown`.
 * `current`, the policy in force now: the walk gives way to others, and when a reload landed
 * meanwhile its answer is the old policy's, so it is `unknown` too, to be asked again.
 */
export async function treeVerdict(gate: CompiledPolicy, change: TreeChange, options: { readonly signal?: AbortSignal | undefined; readonly halted?: () => boolean; readonly current?: () => CompiledPolicy } = {}): Promise<TreeVerdict> {
  const verdict = await walkedVerdict(gate, change, () => options.signal?.aborted === true || options.halted?.() === true);
  return options.current === undefined || options.current() === gate ? verdict : POLICY_CHANGED;
}

async function walkedVerdict(gate: CompiledPolicy, change: TreeChange, stop: () => boolean): Promise<TreeVerdict> {
  const { flavor } = gate.host;
  const source = change.kind === 'delete' ? change.path : change.from;
  const landings = change.kind === 'delete' ? [] : change.to;
  const kind = probe(source);
  if (kind === 'link') return landings.map((to) => relinked(gate, source, to)).find((v) => v !== undefined) ?? OK;
  if (kind !== 'dir') return landings.map((to) => readableUnasked(gate, change.kind, source, to)).find((v) => v !== undefined) ?? OK;
  const below = (root: string) => (r: { readonly real: string }) => r.real !== root && isUnder(r.real, root, flavor);
  const readOnly = gate.roots.filter((r) => r.mode === 'ro');
  if (change.kind !== 'copy') {
    const inside = readOnly.find(below(source));
    if (inside !== undefined) return { kind: 'refused', rule: inside.rule, reason: `\`${source}\` holds the read-only root \`${inside.real}\` (${inside.rule})` };
  }
  for (const to of landings) {
    const under = readOnly.find(below(to));
    if (under !== undefined) return { kind: 'refused', rule: under.rule, reason: `\`${to}\` holds the read-only root \`${under.real}\` (${under.rule}), which it would write into` };
  }
  // What a package manager's folder holds is a package's own: a delete does not look inside one,
  // nor at all when that is what it deletes. A move or copy looks everywhere, since anything may
  // land where the policy hides it.
  if (change.kind === 'delete') return PACKAGE_FOLDERS.has(basename(source)) ? OK : deleteVerdict(gate, source, stop);
  const verb = change.kind === 'move' ? 'moving' : 'copying';
  const refused = (rule: string, reason: string): TreeVerdict => ({ kind: 'refused', rule, reason });
  const walked = await walkEveryEntry(
    source,
    ({ path }): TreeVerdict | undefined => {
      const hidden = whyHidden(gate, path);
      for (const to of landings) {
        const landing = `${to}${path.slice(source.length)}`;
        const moved = relinked(gate, path, landing);
        if (moved !== undefined) return moved;
        const there = whyHidden(gate, landing);
        if (hidden === undefined && there !== undefined) return refused(there.rule, `${verb} \`${source}\` would put \`${path}\` at \`${landing}\`, which ${there.why} keeps out`);
        if (hidden !== undefined && there === undefined) return refused(hidden.rule, `\`${source}\` holds \`${path}\`, which ${hidden.why} keeps out; ${verb} the folder would make it \`${landing}\`, which nothing keeps out`);
        const unasked = hidden === undefined ? readableUnasked(gate, change.kind, path, landing) : undefined;
        if (unasked !== undefined) return unasked;
      }
      return undefined;
    },
    { limit: MAX_TREE_WALK, stop },
  );
  if ('stopped' in walked) return walked.stopped;
  if ('incomplete' in walked) return { kind: 'unknown', reason: `${walked.incomplete}, so ORACLE cannot tell what ${verb} \`${source}\` takes with it` };
  return OK;
}

/**
 * A delete takes nothing hidden with it: the folder's entries as the policy judged them, kept
 * while each folder is unchanged (the decision's walk and the executor's are one walk's work when
 * nothing changed between them). Only what the policy flags is shown to the walk; a hidden entry
 * always is.
 */
async function deleteVerdict(gate: CompiledPolicy, source: string, stop: () => boolean): Promise<TreeVerdict> {
  let found: TreeVerdict | undefined;
  const walked = await walkListings(
    judgedListings(gate),
    source,
    (entry) => {
      const { hidden } = entry.note;
      if (hidden !== undefined) {
        found ??= { kind: 'refused', rule: hidden.rule, reason: `\`${source}\` holds \`${entry.path}\`, which ${hidden.why} keeps out; deleting the folder would take it too` };
        return false;
      }
      return !PACKAGE_FOLDERS.has(entry.name);
    },
    { limit: MAX_TREE_WALK, unreadable: 'incomplete', stop: () => found !== undefined || stop() },
  );
  if (found !== undefined) return found;
  if ('incomplete' in walked) return { kind: 'unknown', reason: `${walked.incomplete}, so ORACLE cannot tell what deleting \`${source}\` takes with it` };
  return OK;
}

/**
 * A file whose fs.read a tier rule makes a person's call, moved or copied where reading it is not:
 * refused, or the copy would be read unasked (red team, session 33: `fs_move private/notes.txt
 * moved.txt`, then an fs.read at T0). A delete takes nothing anyone reads.
 */
function readableUnasked(gate: CompiledPolicy, kind: TreeChange['kind'], path: string, landing: string): TreeVerdict | undefined {
  if (kind === 'delete') return undefined;
  const asks = whyUnread(gate, path);
  if (asks === undefined || whyUnread(gate, landing) !== undefined) return undefined;
  return { kind: 'refused', rule: asks.rule, reason: `\`${path}\`: ${asks.why}; ${kind === 'move' ? 'moving' : 'copying'} it to \`${landing}\` would let it be read unasked` };
}

/**
 * The whole-folder change a judged part makes, if it is one: a delete, or a move or copy from its
 * source (paths[1]) to where it lands (paths[0], and paths[2] when a missing destination may yet
 * become a folder; core/decide/landing.ts).
 */
export function treeChangeOf(evaluation: Evaluation): TreeChange | undefined {
  const [first, second, third] = evaluation.paths;
  if (first === undefined) return undefined;
  if (evaluation.tool === 'fs.delete') return { kind: 'delete', path: first.real };
  if ((evaluation.tool === 'fs.move' || evaluation.tool === 'fs.copy') && second !== undefined) {
    return { kind: evaluation.tool === 'fs.move' ? 'move' : 'copy', from: second.real, to: third === undefined ? [first.real] : [first.real, third.real] };
  }
  return undefined;
}
