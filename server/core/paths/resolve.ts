import { hasPlainSegments, joinPath, rootLength, splitCanonical } from './canonical.js';
import type { PathFlavor } from './flavor.js';
import { lexLinkTarget, lexPath } from './lex.js';
import { pathFail, pathOk, type PathResult } from './result.js';

/** What is at a path, without following a final link. */
export type Entry =
  | { readonly kind: 'missing' }
  | { readonly kind: 'dir' | 'file' | 'other' }
  | { readonly kind: 'link'; readonly target: string }
  | { readonly kind: 'error'; readonly reason: string };

/**
 * The only I/O of the policy core (SPEC §5 step 8), injected so the core stays pure: the node
 * adapter uses lstat + readlink, tests use an in-memory tree for Windows inputs.
 */
export interface LinkReader {
  /** `path` is canonical and absolute. A link reports its raw target. */
  entry(path: string): Entry;
}

/** Linux gives up after 40 links; so do we, and deny. */
const MAX_LINK_HOPS = 40;

/**
 * Step 8: walks the path one segment at a time, following every link (symlinks, junctions) to
 * where it points, also when the target does not exist (a dangling link resolves to its target,
 * never to the link). Below the first missing segment nothing can exist, so the rest is kept as
 * written. Each link target is checked like an input (step 9), so a link to `\\server\share` or a
 * device path is refused.
 */
export function resolveReal(path: string, reader: LinkReader, flavor: PathFlavor): PathResult<string> {
  const straight = walkStraight(path, reader);
  if (straight.kind === 'plain') return recheck(path, flavor);
  return resolveRealGenerally(path, straight.kind === 'stopped' ? replaying(straight, reader) : reader, flavor);
}

/**
 * The common case first: a canonical path whose ancestors are plain directories (or missing) is
 * its own real path, and every ancestor is a prefix of it, so nothing is split or joined. At the
 * first link (or error) the general walk takes over, replaying the entries already read, so the
 * reader sees each path once and in the same order as the general walk alone would ask.
 */
type Straight =
  | { readonly kind: 'plain' }
  | { readonly kind: 'general' }
  /** Stopped at `at` (a link or an error); every shorter prefix of the path was a plain entry. */
  | { readonly kind: 'stopped'; readonly at: string; readonly entry: Entry };

const PLAIN_KINDS: ReadonlySet<Entry['kind']> = new Set(['dir', 'file', 'other']);

function walkStraight(path: string, reader: LinkReader): Straight {
  const root = rootLength(path);
  if ((root === 1 && path.charCodeAt(0) !== 0x2f) || !hasPlainSegments(path, root, Infinity)) return { kind: 'general' };
  for (let end = root; end < path.length; ) {
    const slash = path.indexOf('/', end);
    const next = slash === -1 ? path.length : slash;
    const here = path.slice(0, next);
    const entry = reader.entry(here);
    // Below a missing segment nothing can exist: the rest is kept as written.
    if (entry.kind === 'missing') return { kind: 'plain' };
    if (!PLAIN_KINDS.has(entry.kind)) return { kind: 'stopped', at: here, entry };
    end = next + 1;
  }
  return { kind: 'plain' };
}

/**
 * The reader as the straight walk left it: the general walk asks the same prefixes first, and
 * gets the answers already read (every one before the stop was plain, which the general walk
 * treats alike), then the link or error, then the real reader.
 */
function replaying(stopped: Extract<Straight, { kind: 'stopped' }>, reader: LinkReader): LinkReader {
  let replaying = true;
  return {
    entry(asked) {
      if (replaying) {
        if (asked === stopped.at) {
          replaying = false;
          return stopped.entry;
        }
        if (asked.length < stopped.at.length && stopped.at.startsWith(asked) && stopped.at.charCodeAt(asked.length) === 0x2f) return PLAIN;
        replaying = false;
      }
      return reader.entry(asked);
    },
  };
}

const PLAIN: Entry = { kind: 'dir' };

/** Step 9: the resolved result must itself be a clean canonical path. */
function recheck(resolved: string, flavor: PathFlavor): PathResult<string> {
  const again = lexPath(resolved, { flavor });
  if (!again.ok) return pathFail(again.code, `the resolved path is refused: ${again.reason}`);
  return pathOk(again.value);
}

/** The general walk, for any path and any links; exported so tests hold the straight walk to it. */
export function resolveRealGenerally(path: string, reader: LinkReader, flavor: PathFlavor): PathResult<string> {
  const start = splitCanonical(path);
  let root = start.root;
  let done: string[] = [];
  // `root` + `done` joined, kept as the walk goes so each step costs one concatenation.
  let walked = root;
  // Segments still to walk, last one first, so taking the next is a pop.
  const pending = start.segments.slice().reverse();
  let hops = 0;
  let missing = false;
  for (let segment = pending.pop(); segment !== undefined; segment = pending.pop()) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      // The kernel cannot walk `..` out of a directory that does not exist; neither do we.
      if (missing) return pathFail('PATH_UNRESOLVABLE', `a link on the way to \`${path}\` walks \`..\` out of a missing directory`);
      // Only link targets bring `..` here, and `done` is already physical, so this is exact.
      done.pop();
      walked = joinPath({ root, segments: done });
      continue;
    }
    if (missing) {
      done.push(segment);
      continue;
    }
    const here = done.length === 0 ? root + segment : `${walked}/${segment}`;
    const entry = reader.entry(here);
    switch (entry.kind) {
      case 'missing':
        missing = true;
        done.push(segment);
        walked = here;
        break;
      case 'dir':
      case 'file':
      case 'other':
        done.push(segment);
        walked = here;
        break;
      case 'link': {
        hops += 1;
        if (hops > MAX_LINK_HOPS) return pathFail('PATH_UNRESOLVABLE', `too many links while resolving \`${path}\``);
        const target = lexLinkTarget(entry.target, flavor);
        if (!target.ok) return pathFail(target.code, `a link on the way points to a refused path: ${target.reason}`);
        // An absolute target restarts the walk; a relative one continues from the link's directory.
        if (target.value.root !== null) {
          root = target.value.root;
          done = [];
          walked = root;
        }
        for (let i = target.value.segments.length - 1; i >= 0; i--) pending.push(target.value.segments[i] ?? '');
        break;
      }
      case 'error':
        return pathFail('PATH_UNRESOLVABLE', `\`${here}\` could not be examined: ${entry.reason}`);
    }
  }
  return recheck(joinPath({ root, segments: done }), flavor);
}
