import { joinPath, splitCanonical } from './canonical.js';
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
  // Step 9: the resolved result must itself be a clean canonical path.
  const again = lexPath(joinPath({ root, segments: done }), { flavor });
  if (!again.ok) return pathFail(again.code, `the resolved path is refused: ${again.reason}`);
  return pathOk(again.value);
}
