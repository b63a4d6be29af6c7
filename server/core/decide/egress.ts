import { normaliseHost } from '../policy/names.js';
import type { EgressHost, EgressPolicy } from '../policy/types.js';
import { refused, tiered, type Outcome } from './outcome.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u;

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
export function judgeFetch(request: FetchRequest, egress: EgressPolicy): { outcome: Outcome; url: string; method: string } {
  const method = request.method.toUpperCase();
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { outcome: refused('URL_INVALID', 'net.fetch', `\`${request.url}\` is not a URL`), url: request.url, method };
  }
  const fail = (outcome: Outcome) => ({ outcome, url: url.href, method });
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail(refused('URL_INVALID', 'net.fetch', `scheme \`${url.protocol}\` is not http or https`));
  if (url.username !== '' || url.password !== '') {
    return fail(refused('URL_INVALID', 'net.fetch', 'credentials in a URL are refused; name a secret instead'));
  }
  if (!METHODS.has(method)) return fail(refused('ARG_SHAPE', 'net.fetch', `\`${request.method}\` is not an HTTP method ORACLE sends`));
  for (const [name, value] of Object.entries(request.headers)) {
    if (!HEADER_NAME.test(name) || /[\r\n]/u.test(value) || value.includes('\u0000')) return fail(refused('ARG_SHAPE', 'net.fetch', `header \`${name}\` is malformed`));
  }
  const host = bare(normaliseHost(url.hostname));
  const listed = egress.allow.find((entry) => hostMatches(entry, host));
  if (listed === undefined) {
    if (egress.default === 'confirm') return fail(tiered('T2', 'egress.default', `\`${host}\` is not in the egress allowlist; egress.default is confirm`));
    return fail(refused('EGRESS_DENIED', 'egress.default', `\`${host}\` is not in the egress allowlist`));
  }
  const why = listed.why === '' ? '' : ` (${listed.why})`;
  if (method === 'GET' || method === 'HEAD') return fail(tiered('T1', listed.rule, `${method} to allow-listed \`${host}\`${why}`));
  return fail(tiered('T2', listed.rule, `${method} sends data to \`${host}\`${why}`));
}

function bare(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function hostMatches(entry: EgressHost, host: string): boolean {
  const allowed = bare(entry.host);
  if (allowed.startsWith('*.')) return host.endsWith(allowed.slice(1)) && host.length > allowed.length - 1;
  return allowed === host;
}
