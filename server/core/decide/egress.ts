import { normaliseHost } from '../policy/names.js';
import type { EgressHost, EgressPolicy } from '../policy/types.js';
import { refused, tiered, type Outcome } from './outcome.js';

export const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u;
/** Headers that change where or how the request travels: refused, the card could not show it. */
export const REFUSED_HEADERS: ReadonlySet<string> = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length', 'expect']);
/** Credentials and forwarding claims a model never supplies (SPEC §6): removed, and said so. */
const STRIPPED_HEADER = /^(?:authorization|cookie|proxy-.*|forwarded|x-forwarded-.*|x-real-ip|via)$/u;
const DEFAULT_PORT: Readonly<Record<string, string>> = { 'https:': '443', 'http:': '80' };

export interface FetchRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * net.fetch before any byte leaves (SPEC §4, §6): only http(s), no credentials in the URL, a
 * known method, headers that cannot smuggle a second line; then the host allowlist. The host is
 * compared as written, with no DNS here; the egress broker resolves once and checks addresses.
 */
export interface JudgedFetch {
  readonly outcome: Outcome;
  /** The request as it will be sent: normalised URL and method, headers after stripping. */
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
}

export function judgeFetch(request: FetchRequest, egress: EgressPolicy): JudgedFetch {
  const method = request.method.toUpperCase();
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { outcome: refused('URL_INVALID', 'net.fetch', `\`${request.url}\` is not a URL`), url: request.url, method, headers: {} };
  }
  const headers: Record<string, string> = {};
  const stripped: string[] = [];
  const sent: Sent = { url, method, headers, stripped };
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return judged(sent, refused('URL_INVALID', 'net.fetch', `scheme \`${url.protocol}\` is not http or https`));
  if (url.username !== '' || url.password !== '') {
    return judged(sent, refused('URL_INVALID', 'net.fetch', 'credentials in a URL are refused; name a secret instead'));
  }
  if (!METHODS.has(method)) return judged(sent, refused('ARG_SHAPE', 'net.fetch', `\`${request.method}\` is not an HTTP method ORACLE sends`));
  for (const [name, value] of Object.entries(request.headers)) {
    if (!HEADER_NAME.test(name) || /[\r\n]/u.test(value) || value.includes('\u0000')) return judged(sent, refused('ARG_SHAPE', 'net.fetch', `header \`${name}\` is malformed`));
    const lower = name.toLowerCase();
    if (REFUSED_HEADERS.has(lower)) return judged(sent, refused('ARG_SHAPE', 'net.fetch', `header \`${name}\` changes where or how the request travels`));
    if (STRIPPED_HEADER.test(lower)) stripped.push(name);
    else headers[name] = value;
  }
  const host = bare(normaliseHost(url.hostname));
  const port = url.port === '' ? (DEFAULT_PORT[url.protocol] ?? '') : url.port;
  const listed = listedFor(host, port, DEFAULT_PORT[url.protocol] ?? '', egress);
  if (listed === undefined) {
    const why = notListed(host, port, DEFAULT_PORT[url.protocol] ?? '', egress);
    if (egress.default === 'confirm') {
      // An unlisted host is never cheaper than a person's look, whatever a tier rule says.
      return judged(sent, { ok: true, tier: 'T2', rule: 'egress.default', reasons: [`${why}; egress.default is confirm`], floor: 'T2' });
    }
    return judged(sent, refused('EGRESS_DENIED', 'egress.default', why));
  }
  const why = listed.why === '' ? '' : ` (${listed.why})`;
  if (method === 'GET' || method === 'HEAD') return judged(sent, tiered('T1', listed.rule, `${method} to allow-listed \`${host}\`${why}`));
  return judged(sent, tiered('T2', listed.rule, `${method} sends data to \`${host}\`${why}`));
}

/** The request as it will be sent, and the headers taken out of it. */
interface Sent {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly stripped: readonly string[];
}

/** The judgement with the request as sent; an allowed one says which headers were removed. */
function judged(sent: Sent, outcome: Outcome): JudgedFetch {
  const { url, method, headers, stripped } = sent;
  const note = stripped.length === 0 || !outcome.ok ? outcome : { ...outcome, reasons: [...outcome.reasons, `headers removed before sending: ${stripped.join(', ')}`] };
  return { outcome: note, url: url.href, method, headers };
}

function isIpLiteral(host: string): boolean {
  return /^[0-9.]+$/u.test(host) || host.includes(':');
}

function bare(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * The allowlist entry that admits `host` (as written, no DNS) on `port`, where `defaultPort` is
 * the port of the scheme in use: an entry without a port allows that one only; `host:*` any.
 */
export function listedFor(host: string, port: string, defaultPort: string, egress: EgressPolicy): EgressHost | undefined {
  return egress.allow.find((entry) => hostMatches(entry, host) && (entry.port === '*' || (entry.port ?? defaultPort) === port));
}

/**
 * Why `host` on `port` is not admitted, as the person should read it: a host listed for another
 * port is not "not listed" (an entry without a port allows its scheme's default port only).
 */
export function notListed(host: string, port: string, defaultPort: string, egress: EgressPolicy): string {
  const ports = [...new Set(egress.allow.filter((entry) => hostMatches(entry, host)).map((entry) => entry.port ?? defaultPort))];
  if (ports.length === 0) return `\`${host}\` is not in the egress allowlist (a person can add it under \`egress.allow\` in the policy)`;
  const listed = ports.map((p) => `${p}${p === defaultPort ? ' (the default port of the scheme, as an entry without a port means)' : ''}`).join(', ');
  return `\`${host}\` is in the egress allowlist for port ${listed} only, not port ${port} (list it as \`${host}:${port}\`, or \`${host}:*\` for any port)`;
}

function hostMatches(entry: EgressHost, host: string): boolean {
  const allowed = bare(entry.host);
  // A wildcard names subdomains, never an IP address (`*.0.0.1` must not match 127.0.0.1).
  if (allowed.startsWith('*.')) return !isIpLiteral(host) && host.endsWith(allowed.slice(1)) && host.length > allowed.length - 1;
  return allowed === host;
}
