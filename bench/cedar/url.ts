import type { Context } from '@cedar-policy/cedar-wasm/nodejs';
import { HEADER_NAME } from '../../server/core/decide/egress.js';
import { normaliseHost } from '../../server/core/policy/names.js';

const DEFAULT_PORT: Readonly<Record<string, string>> = { 'https:': '443', 'http:': '80' };

/**
 * A net.fetch request as Cedar sees it: the WHATWG-parsed URL's parts, the method and header
 * names. Undefined when ORACLE refuses it before any rule: not a URL, or a header that could
 * smuggle a second line (Cedar has no regular expressions to say so itself).
 */
export function fetchContext(url: string, method: string, headers: Readonly<Record<string, string>>): { context: Context; host: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || /[\r\n]/u.test(value) || value.includes('\u0000')) return undefined;
  }
  const host = normaliseHost(parsed.hostname).replace(/^\[(.*)\]$/u, '$1');
  const context: Context = {
    scheme: parsed.protocol,
    host,
    port: parsed.port === '' ? (DEFAULT_PORT[parsed.protocol] ?? '') : parsed.port,
    defaultPort: DEFAULT_PORT[parsed.protocol] ?? '',
    ip: /^[0-9.]+$/u.test(host) || host.includes(':'),
    userinfo: parsed.username !== '' || parsed.password !== '',
    method: method.toUpperCase(),
    headers: Object.keys(headers).map((h) => h.toLowerCase()),
  };
  return { context, host };
}
