import { matchSegments, segmentTokens, type Budget, type GlobSegment } from './wildcard.js';

/**
 * fs.search's `glob` (the MCP fs_search): which files a search reads. Without a `/` it names the
 * file's name, with one the path under the search's folder. `*`, `?`, `[…]`, `**` as a whole
 * segment and `{a,b}` (not nested, at most 64 spellings) are read as any glob reads them, dot
 * files included; extglobs, `(`, `)`, `|` and a leading `!` are refused with a clear reason rather
 * than read some other way. Matched in bounded work (wildcard.ts). Pure.
 */
export type FileGlob = { readonly ok: true; readonly test: (relativePath: string, name: string, budget: Budget) => boolean | 'over' } | { readonly ok: false; readonly reason: string };

const MAX_SPELLINGS = 64;
export const SUPPORTED = '`*`, `?`, `[…]`, `**` and `{a,b}`';

export function compileFileGlob(glob: string): FileGlob {
  if (glob.startsWith('!')) return { ok: false, reason: `a glob starting with \`!\` (a negation) is not supported; ${SUPPORTED} are` };
  if (/[()|]/u.test(glob.replace(/\\./gu, ''))) return { ok: false, reason: `\`(\`, \`)\` and \`|\` (extglobs) are not supported; ${SUPPORTED} are` };
  const spellings = expandBraces(glob);
  if (typeof spellings === 'string') return { ok: false, reason: spellings };
  const byPath = glob.includes('/');
  const compiled = spellings.map((spelling): readonly GlobSegment[] => spelling.split('/').map((part) => (part === '**' ? 'globstar' : segmentTokens(part))));
  return {
    ok: true,
    test: (relativePath, name, budget) => {
      const subject = byPath ? relativePath.split('/') : [name];
      for (const segments of compiled) {
        const matched = matchSegments(segments, subject, budget);
        if (matched !== false) return matched;
      }
      return false;
    },
  };
}

/** Every spelling of `{a,b}` groups (one level, in sequence), or why not. */
function expandBraces(glob: string): string[] | string {
  let spellings = [''];
  let i = 0;
  while (i < glob.length) {
    const c = glob.charAt(i);
    if (c === '\\' && i + 1 < glob.length) {
      spellings = spellings.map((s) => s + glob.slice(i, i + 2));
      i += 2;
      continue;
    }
    if (c === '{') {
      const close = glob.indexOf('}', i);
      const body = close < 0 ? '' : glob.slice(i + 1, close);
      if (close >= 0 && body.includes('{')) return `nested braces are not supported; ${SUPPORTED} are`;
      if (close >= 0 && body.includes(',')) {
        const options = body.split(',');
        if (spellings.length * options.length > MAX_SPELLINGS) return `the braces spell more than ${String(MAX_SPELLINGS)} globs`;
        spellings = spellings.flatMap((s) => options.map((o) => s + o));
        i = close + 1;
        continue;
      }
    }
    spellings = spellings.map((s) => s + c);
    i += 1;
  }
  return spellings;
}
