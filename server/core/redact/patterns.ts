import { looksLikeOpaqueToken } from './entropy.js';
import { findPrivateKeys } from './private-keys.js';
import { isMarker, type Redaction, type RedactionKind } from './kinds.js';

/**
 * The high-precision half of SPEC §6 redaction: token formats whose prefix or shape says "secret"
 * by itself. Each pattern redacts `group` (the whole match when 0), so a connection string keeps
 * its user and host and an AWS secret keeps its key name. `accept` rejects look-alikes that share
 * a prefix with ordinary text (`sk-learn-...`).
 *
 * Every regex carries `d` (match indices) and `g`; `matchAll` clones it, so the module-level
 * objects hold no state between calls.
 */
interface Pattern {
  readonly kind: RedactionKind | ((m: RegExpMatchArray) => RedactionKind);
  readonly re: RegExp;
  readonly group: number;
  readonly accept?: (m: RegExpMatchArray) => boolean;
  /**
   * Text every match contains (any one of the strings, or a match of the regex): a text without it
   * cannot match, so the pattern's regex is not run over it. Exact, never a heuristic: each entry
   * is a literal the regex requires.
   */
  readonly needs: readonly string[] | RegExp;
}

const DATABASE_SCHEMES = /^(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|jdbc:[a-z]+|clickhouse|cockroachdb|couchdb)$/iu;

const PATTERNS: readonly Pattern[] = [
  { kind: 'anthropic-key', re: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/dgu, group: 0, needs: ['sk-ant-'] },
  {
    kind: 'openai-key',
    re: /(?<![A-Za-z0-9_-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?([A-Za-z0-9_-]{20,})/dgu,
    group: 0,
    accept: (m) => looksLikeOpaqueToken(m[1] ?? ''),
    needs: ['sk-'],
  },
  { kind: 'github-token', re: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])/dgu, group: 0, needs: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'] },
  { kind: 'github-token', re: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}/dgu, group: 0, needs: ['github_pat_'] },
  { kind: 'aws-access-key-id', re: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])/dgu, group: 0, needs: ['AKIA', 'ASIA'] },
  {
    // The secret access key has no prefix of its own; it is found by the name it sits under.
    kind: 'aws-secret-access-key',
    re: /(?<![A-Za-z0-9])(?:aws[_-]?)?secret[_-]?access[_-]?key["']?\s*(?:=|:|=>)\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dgiu,
    group: 1,
    needs: /secret/iu,
  },
  { kind: 'slack-token', re: /(?<![A-Za-z0-9_-])xox(?:[baprs]|e(?:\.xox[bp])?)-[A-Za-z0-9-]{10,}/dgu, group: 0, needs: ['xox'] },
  { kind: 'slack-webhook', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,}/dgu, group: 0, needs: ['https://hooks.slack.com/'] },
  { kind: 'google-api-key', re: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/dgu, group: 0, needs: ['AIza'] },
  { kind: 'stripe-key', re: /(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}|whsec_[0-9A-Za-z]{24,})/dgu, group: 0, needs: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'whsec_'] },
  { kind: 'npm-token', re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/dgu, group: 0, needs: ['npm_'] },
  // A JWT's header and payload are JSON objects, so both start `eyJ` (base64url of `{"`). The
  // signature may be empty (`alg: none`): still a bearer credential.
  { kind: 'jwt', re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/dgu, group: 0, needs: ['eyJ'] },
  {
    // scheme://user:password@host. RFC 3986 userinfo ends at the authority's last `@`; the
    // password may hold unescaped `:` or `@` in the wild, so it runs greedily to that last `@`
    // and stops at `/ ? #`, whitespace and quotes. Only the password is hidden. The user part
    // holds no `[ ]` (RFC 3986 gen-delims), so a marker left by an earlier pass is never
    // mistaken for `user:password`.
    kind: (m) => (DATABASE_SCHEMES.test(m[1] ?? '') ? 'connection-string' : 'url-credentials'),
    re: /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.:-]{1,30}):\/\/[^\s'"`<>/?#@:[\]]*:([^\s'"`<>/?#]+)@/dgu,
    group: 2,
    needs: ['://'],
  },
];

const mayMatch = (needs: readonly string[] | RegExp, text: string): boolean => (needs instanceof RegExp ? needs.test(text) : needs.some((n) => text.includes(n)));

/**
 * Every literal a pattern's `needs` lists, in one regex: a text holding none of them cannot match
 * any of those patterns, found in one scan instead of one `includes` per literal (a 4 KiB text:
 * 6 µs against 15 µs here; most of what is redacted, file text and program output, holds none).
 */
const ANY_LITERAL = new RegExp(
  PATTERNS.flatMap((p) => (p.needs instanceof RegExp ? [] : p.needs))
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&'))
    .join('|'),
  'u',
);

export function findPatterns(text: string): Redaction[] {
  const out: Redaction[] = findPrivateKeys(text);
  const literals = ANY_LITERAL.test(text);
  for (const p of PATTERNS) {
    if (!(p.needs instanceof RegExp) && !literals) continue;
    if (!mayMatch(p.needs, text)) continue;
    for (const m of text.matchAll(p.re)) {
      if (p.accept !== undefined && !p.accept(m)) continue;
      const span = m.indices?.[p.group];
      if (span === undefined || span[1] <= span[0]) continue;
      // Already a marker (`postgres://u:[REDACTED:connection-string]@h`): redacting it again
      // would report a find in text that holds no secret.
      if (isMarker(text.slice(span[0], span[1]))) continue;
      out.push({ kind: typeof p.kind === 'function' ? p.kind(m) : p.kind, start: span[0], end: span[1] });
    }
  }
  return out;
}
