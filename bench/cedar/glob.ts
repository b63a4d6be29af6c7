import { likeLiteral } from './text.js';

/**
 * An ORACLE glob (as `globBase` reads it, before `/**` is added) as Cedar `like` patterns over a
 * canonical `/`-separated path. Cedar has one wildcard, `*`, which also matches `/`; globs have
 * `*` (within a segment), `**` (any number of segments), `?`, brackets and braces.
 *
 * Exact: `**` as a whole segment (it becomes `*` between slashes, with a variant for zero
 * segments), a `*` that opens the first segment after a leading `**` (`** /*.env` → `*.env`), a
 * `*` that ends the pattern (`** /id_rsa*`), braces (expanded into alternatives).
 * Not exact, and then always wider, so Cedar denies more than ORACLE: any other `*` (it can
 * cross `/` in Cedar), `?` and brackets (both become `*`).
 */
export interface LikePatterns {
  /** Pattern bodies ready to go between the quotes of `like "…"`. */
  readonly patterns: readonly string[];
  readonly exact: boolean;
}

/** `base` and everything inside what it matches (ORACLE: a denied directory denies its contents). */
export function globToLike(base: string, prefix = ''): LikePatterns {
  const alternatives = expandBraces(base);
  const patterns = new Set<string>();
  let exact = alternatives.exact;
  for (const alternative of alternatives.values) {
    const forms = alternative.endsWith('/**') ? [alternative] : [alternative, `${alternative}/**`];
    for (const form of forms) {
      const translated = translate(prefix, form);
      exact &&= translated.exact;
      for (const pattern of translated.patterns) patterns.add(pattern);
    }
  }
  return { patterns: [...patterns], exact };
}

/**
 * One glob without braces. Each `**` segment is either dropped (zero segments) or becomes `*`
 * (one or more: Cedar's `*` crosses `/`); the other segments are translated one by one and
 * joined with `/`. With no prefix the inputs are absolute, so a leading `**` is never dropped.
 */
function translate(prefix: string, glob: string): LikePatterns {
  const segments = glob.split('/');
  let exact = true;
  const converted = segments.map((segment, i) => {
    if (segment === '**') return null;
    const onlyGlobstarsBefore = segments.slice(0, i).every((s) => s === '**');
    const onlyGlobstarsAfter = segments.slice(i + 1).every((s) => s === '**');
    const one = convertSegment(segment, { opensFree: i > 0 && onlyGlobstarsBefore, endsFree: onlyGlobstarsAfter });
    exact &&= one.exact;
    return one.text;
  });
  let variants: string[][] = [[]];
  converted.forEach((text, i) => {
    if (text !== null) {
      variants = variants.map((v) => [...v, text]);
      return;
    }
    const keepLeading = prefix === '' && i === 0;
    variants = variants.flatMap((v) => (keepLeading ? [[...v, '*']] : [v, [...v, '*']]));
  });
  return { patterns: variants.map((v) => likeLiteral(prefix) + v.join('/')), exact };
}

/**
 * A `*` inside a segment becomes Cedar's `*`, which may also cross `/`: that changes nothing
 * where the glob already allowed anything before it (only `**` precede, `opensFree`) or after
 * it (only `**` follow, `endsFree`); anywhere else Cedar matches more than the glob.
 */
function convertSegment(segment: string, at: { opensFree: boolean; endsFree: boolean }): { text: string; exact: boolean } {
  let text = '';
  let exact = true;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] ?? '';
    if (c === '\\' && i + 1 < segment.length) {
      i += 1;
      text += likeLiteral(segment[i] ?? '');
    } else if (c === '*') {
      const first = i === 0;
      while (segment[i + 1] === '*') i += 1;
      const last = i === segment.length - 1;
      if (!((first && at.opensFree) || (last && at.endsFree))) exact = false;
      text += '*';
    } else if (c === '?') {
      exact = false;
      text += '*';
    } else if (c === '[') {
      const close = segment.indexOf(']', i + 2);
      exact = false;
      text += '*';
      if (close !== -1) i = close;
    } else {
      text += likeLiteral(c);
    }
  }
  return { text, exact };
}

/** `{a,b}` → two alternatives (one level, up to 64); nested braces are left literal and flagged. */
function expandBraces(glob: string): { values: string[]; exact: boolean } {
  const open = glob.indexOf('{');
  if (open === -1) return { values: [glob], exact: true };
  const close = glob.indexOf('}', open);
  const inner = close === -1 ? '' : glob.slice(open + 1, close);
  if (close === -1 || inner.includes('{')) return { values: [glob], exact: false };
  const out: string[] = [];
  let exact = true;
  for (const choice of inner.split(',')) {
    const rest = expandBraces(glob.slice(0, open) + choice + glob.slice(close + 1));
    exact &&= rest.exact;
    out.push(...rest.values);
    if (out.length > 64) return { values: [glob], exact: false };
  }
  return { values: out, exact };
}
