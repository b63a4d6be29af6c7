import { hasPlainSegments, joinPath, rootLength, splitCanonical, type SplitPath } from './canonical.js';
import { hasConfusable, hasControl, hasExpansion, hasNul, hasTildePrefix } from './characters.js';
import type { PathFlavor } from './flavor.js';
import { pathFail, pathOk, type PathResult } from './result.js';
import {
  hasTrailingDotOrSpace,
  isDevicePath,
  isReservedName,
  isUncPath,
  looksLikeShortName,
} from './windows.js';

export interface LexOptions {
  readonly flavor: PathFlavor;
  /** The step's pinned working directory, already canonical (step 6). */
  readonly cwd?: string | undefined;
  /** Only for tools that declare a wildcard argument (step 1). */
  readonly allowWildcards?: boolean | undefined;
  /**
   * Step 5 on a Windows host: the long form of a path that holds an 8.3 alias, or null when it
   * cannot be expanded. Absent everywhere else, and then `~N` names are refused.
   */
  readonly expandShortName?: ((path: string) => string | null) | undefined;
}

const MAX_PATH_CHARS = 4096;
const MAX_SEGMENT_CHARS = 255;

/**
 * SPEC §5 steps 1–7: refuse what cannot be made to mean one thing, then make the path absolute
 * and collapse `.` and `..` lexically. The output is canonical (see canonical.ts). This is pure;
 * symlinks are step 8 (resolve.ts).
 *
 * INVARIANT: executors act on the resolved form of this output, never on the raw input, so the
 * lexical collapse of `link/..` cannot make the gate and the executor disagree.
 */
export function lexPath(raw: unknown, options: LexOptions): PathResult<string> {
  const plain = plainPosix(raw, options);
  return plain === undefined ? lexPathFully(raw, options) : pathOk(plain);
}

/** lexPath without the shortcut for plain POSIX paths; exported so tests hold the two equal. */
export function lexPathFully(raw: unknown, options: LexOptions): PathResult<string> {
  const shape = checkCharacters(raw, options);
  if (!shape.ok) return shape;
  const text = shape.value;
  const split = splitRaw(text, options.flavor);
  if (!split.ok) return split;
  const segments = checkSegments(split.value.segments, options);
  if (!segments.ok) return segments;
  const base = split.value.root === '' ? relativeBase(options) : pathOk({ root: split.value.root, segments: [] });
  if (!base.ok) return base;
  const lexical = joinPath(collapse(base.value, segments.value));
  return expandShortNames(lexical, options);
}

/**
 * The everyday POSIX path, already in canonical shape (`/home/u/p/src/a.ts`, or `src/a.ts`
 * against a canonical cwd): plain ASCII with no backslash or colon, and segments that collapse to
 * themselves. Every check below passes on it and the result is the input (or cwd + `/` + input),
 * so it is returned without splitting and joining. Anything else takes the full path.
 */
function plainPosix(raw: unknown, options: LexOptions): string | undefined {
  if (options.flavor.kind !== 'posix' || typeof raw !== 'string' || raw === '' || raw.length > MAX_PATH_CHARS) return undefined;
  if (!isPlainAscii(raw) || raw.includes('\\') || raw.includes(':')) return undefined;
  if (raw.charCodeAt(0) === SLASH) return hasPlainSegments(raw, 1, MAX_SEGMENT_CHARS) ? raw : undefined;
  const { cwd } = options;
  if (cwd === undefined || !hasPlainSegments(raw, 0, MAX_SEGMENT_CHARS)) return undefined;
  // The cwd must itself come back unchanged from splitCanonical and joinPath.
  const root = rootLength(cwd);
  if ((root === 1 && cwd.charCodeAt(0) !== SLASH) || !hasPlainSegments(cwd, root, Infinity)) return undefined;
  return cwd.length === root ? cwd + raw : `${cwd}/${raw}`;
}

const SLASH = 0x2f;

/** Steps 1–4 on the raw string, in the order that gives the most specific code. */
function checkCharacters(raw: unknown, options: LexOptions): PathResult<string> {
  if (typeof raw !== 'string') return pathFail('PATH_INVALID', 'a path must be a string');
  if (raw === '') return pathFail('PATH_INVALID', 'the path is empty');
  if (raw.length > MAX_PATH_CHARS) return pathFail('PATH_INVALID', `the path is longer than ${MAX_PATH_CHARS} characters`);
  // Nearly every path is plain ASCII: then the character checks below cannot fail, and only the
  // structural ones run. Same answer, without a regular expression per check.
  if (isPlainAscii(raw)) return checkStructure(raw, options);
  if (hasNul(raw)) return pathFail('PATH_NUL', 'the path contains a NUL byte');
  if (hasControl(raw)) return pathFail('PATH_CONTROL_CHAR', 'the path contains a control character');
  if (hasConfusable(raw)) return pathFail('PATH_CONFUSABLE', 'the path contains a look-alike separator or an invisible character');
  return checkStructure(raw, options, true);
}

/** The rest of checkCharacters, in its order; `full` also runs the checks plain ASCII skips. */
function checkStructure(raw: string, options: LexOptions, full = false): PathResult<string> {
  const win = options.flavor.kind === 'win32';
  if (win && isDevicePath(raw)) return pathFail('PATH_DEVICE', `\`${raw}\` is a device or namespace path`);
  if (win && isUncPath(raw)) return pathFail('PATH_UNC', `\`${raw}\` is a UNC path`);
  if (!win && raw.includes('\\')) {
    return pathFail('PATH_INVALID', 'a backslash is not a separator on this platform and is refused as ambiguous');
  }
  if (!win && /^[A-Za-z]:\//u.test(raw)) return pathFail('PATH_INVALID', `\`${raw}\` is a Windows path on a POSIX host`);
  if (full && options.allowWildcards !== true && (win ? /[*?<>"]/u : /[*?]/u).test(raw)) {
    return pathFail('PATH_WILDCARD', 'the path contains a wildcard this tool did not declare');
  }
  if (win && raw.includes('|')) return pathFail('PATH_INVALID', '`|` cannot appear in a Windows path');
  if (win && raw.slice(/^[A-Za-z]:/u.test(raw) ? 2 : 0).includes(':')) {
    return pathFail('PATH_ADS', 'a `:` after the drive letter names an alternate data stream');
  }
  if (full && (hasExpansion(raw) || hasTildePrefix(raw))) {
    return pathFail('PATH_EXPANSION', 'paths are never expanded: `%`, `$` and a leading `~` are refused');
  }
  return pathOk(raw);
}

/**
 * Printable ASCII without a wildcard (`*`, `?`, and `<`, `>`, `"` on Windows), `%`, `$` or a
 * leading `~`: NUL, control, look-alike, wildcard and expansion checks all pass on such a string.
 */
function isPlainAscii(raw: string): boolean {
  if (raw.charCodeAt(0) === 0x7e) return false; // `~`
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
    // * ? % $ < > "
    if (c === 0x2a || c === 0x3f || c === 0x25 || c === 0x24 || c === 0x3c || c === 0x3e || c === 0x22) return false;
  }
  return true;
}

/** Separates the root (`''` when relative) from the segments. */
function splitRaw(text: string, flavor: PathFlavor): PathResult<{ root: string; segments: string[] }> {
  if (flavor.kind === 'posix') {
    return pathOk({ root: text.startsWith('/') ? '/' : '', segments: text.split('/') });
  }
  const drive = /^([A-Za-z]):/u.exec(text);
  if (drive === null) {
    if (/^[\\/]/u.test(text)) return pathFail('PATH_INVALID', 'a rooted path without a drive letter is ambiguous');
    return pathOk({ root: '', segments: text.split(/[\\/]/u) });
  }
  const rest = text.slice(2);
  if (!/^[\\/]/u.test(rest)) return pathFail('PATH_INVALID', `\`${text}\` is relative to a drive's current directory`);
  return pathOk({ root: `${(drive[1] ?? '').toUpperCase()}:/`, segments: rest.split(/[\\/]/u) });
}

function checkSegments(segments: readonly string[], options: LexOptions): PathResult<readonly string[]> {
  const win = options.flavor.kind === 'win32';
  for (const segment of segments) {
    if (segment.length > MAX_SEGMENT_CHARS) return pathFail('PATH_INVALID', 'a path segment is longer than 255 characters');
    if (!win) continue;
    if (isReservedName(segment)) return pathFail('PATH_RESERVED_NAME', `\`${segment}\` is a reserved Windows device name`);
    if (hasTrailingDotOrSpace(segment)) {
      return pathFail('PATH_TRAILING_DOT_SPACE', `\`${segment}\` ends in a dot or a space, which Windows strips`);
    }
  }
  return pathOk(segments);
}

/** The reason a relative path without a working directory is refused (load.ts rewords it for roots). */
export const RELATIVE = 'a relative path needs a working directory';

function relativeBase(options: LexOptions): PathResult<SplitPath> {
  if (options.cwd === undefined) return pathFail('PATH_INVALID', RELATIVE);
  return pathOk(splitCanonical(options.cwd));
}

/** Step 7: `.` and empty segments vanish, `..` removes one segment and stops at the root. */
function collapse(base: SplitPath, segments: readonly string[]): SplitPath {
  const out = [...base.segments];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return { root: base.root, segments: out };
}

/**
 * The absolute form of a POSIX path with its `..` segments kept, for the physical walk
 * (canonicalize.ts): the kernel applies `..` after the links before it (`link/..` is the link
 * target's parent), which the lexical collapse of step 7 does not. Undefined when the path has no
 * `..` (then both agree), on Windows (whose API collapses `..` lexically, as step 7 does) and
 * without a base for a relative path. Only for a path lexPath accepted.
 */
export function climbingForm(raw: string, options: LexOptions): string | undefined {
  if (options.flavor.kind !== 'posix' || !raw.includes('..')) return undefined;
  const segments = raw.split('/');
  if (!segments.includes('..')) return undefined;
  const base = raw.startsWith('/') ? [] : options.cwd === undefined ? undefined : splitCanonical(options.cwd).segments;
  if (base === undefined) return undefined;
  return joinPath({ root: '/', segments: [...base, ...segments.filter((s) => s !== '' && s !== '.')] });
}

/** Step 5: on Windows a `~N` segment is expanded by the host or refused. */
function expandShortNames(lexical: string, options: LexOptions): PathResult<string> {
  if (options.flavor.kind !== 'win32') return pathOk(lexical);
  if (!splitCanonical(lexical).segments.some(looksLikeShortName)) return pathOk(lexical);
  const long = options.expandShortName?.(lexical) ?? null;
  if (long === null) return pathFail('PATH_SHORT_NAME', `\`${lexical}\` may hold an 8.3 short name that could not be expanded`);
  const again = lexPath(long, { flavor: options.flavor });
  if (!again.ok) return again;
  if (splitCanonical(again.value).segments.some(looksLikeShortName)) {
    return pathFail('PATH_SHORT_NAME', `\`${lexical}\` still holds a short name after expansion`);
  }
  return again;
}

/**
 * A link target checked like an input (steps 1–5) but not collapsed: its `..` segments must be
 * applied physically by the resolver, after the links before them. `root` is null when relative.
 */
export function lexLinkTarget(raw: string, flavor: PathFlavor): PathResult<{ root: string | null; segments: readonly string[] }> {
  const options: LexOptions = { flavor };
  const shape = checkCharacters(raw, options);
  if (!shape.ok) return shape;
  const split = splitRaw(shape.value, flavor);
  if (!split.ok) return split;
  const segments = checkSegments(split.value.segments, options);
  if (!segments.ok) return segments;
  if (flavor.kind === 'win32' && segments.value.some(looksLikeShortName)) {
    return pathFail('PATH_SHORT_NAME', 'a link target holds a possible 8.3 short name');
  }
  return pathOk({ root: split.value.root === '' ? null : split.value.root, segments: segments.value });
}
