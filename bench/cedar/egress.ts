import { METHODS, REFUSED_HEADERS } from '../../server/core/decide/egress.js';
import type { EgressHost, EgressPolicy } from '../../server/core/policy/types.js';
import { likeLiteral, set, str, type CedarPolicy } from './text.js';
import { isTool } from './tools.js';

/**
 * net.fetch (SPEC §4, §6) over a parsed URL: `scheme`, `host` (lower case, no trailing dot, no
 * IPv6 brackets), `port` (explicit or the scheme's default), `defaultPort`, `ip` (the host is an
 * address), `userinfo`, `method` (upper case) and the header names (lower case). Parsing is
 * WHATWG URL parsing, done before Cedar as for paths; the allowlist and refusals are here.
 */
export function egressPolicies(egress: EgressPolicy): CedarPolicy[] {
  const fetch = isTool('net.fetch');
  const out: CedarPolicy[] = [
    { id: 'net.fetch.scheme', effect: 'forbid', action: fetch, unless: '["https:", "http:"].contains(context.scheme)' },
    { id: 'net.fetch.userinfo', effect: 'forbid', action: fetch, when: 'context.userinfo' },
    { id: 'net.fetch.method', effect: 'forbid', action: fetch, unless: `${set(METHODS)}.contains(context.method)` },
    { id: 'net.fetch.headers', effect: 'forbid', action: fetch, when: `context.headers.containsAny(${set(REFUSED_HEADERS)})` },
  ];
  egress.allow.forEach((entry) => {
    out.push({ id: entry.rule, effect: 'permit', action: fetch, when: `${hostMatches(entry)} && ${portMatches(entry)}` });
  });
  // An unlisted host waits for a person under `default: confirm` (not a denial); under deny, no permit.
  if (egress.default === 'confirm') out.push({ id: 'egress.default', effect: 'permit', action: fetch });
  return out;
}

/** A wildcard names subdomains, never an IP address (`*.0.0.1` must not match 127.0.0.1). */
function hostMatches(entry: EgressHost): string {
  const host = entry.host.startsWith('[') && entry.host.endsWith(']') ? entry.host.slice(1, -1) : entry.host;
  if (host.startsWith('*.')) return `!context.ip && context.host like "*${likeLiteral(host.slice(1))}" && context.host != ${str(host.slice(1))}`;
  return `context.host == ${str(host)}`;
}

/** No port: the scheme's default only; `*`: any port. */
function portMatches(entry: EgressHost): string {
  if (entry.port === '*') return 'true';
  if (entry.port === undefined) return 'context.port == context.defaultPort';
  return `context.port == ${str(entry.port)}`;
}
