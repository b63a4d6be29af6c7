import type { EgressHost, EgressPolicy } from '../policy/types.js';
import { listedFor, notListed } from './egress.js';

/**
 * Where a git remote URL goes, read the way git reads it (git-clone(1) "GIT URLS"), with no I/O:
 * `scheme://[user@]host[:port]/path`, the scp-like `[user@]host:path`, and local paths. A remote
 * helper (`transport::address`) runs a program of its own and is never a network host here.
 */
export type RemoteWhere =
  | { readonly kind: 'network'; readonly scheme: string; readonly host: string; readonly port: string; readonly user: string; readonly password: boolean }
  | { readonly kind: 'local' }
  | { readonly kind: 'helper'; readonly transport: string }
  | { readonly kind: 'invalid'; readonly reason: string };

/** The ports git uses when a URL names none. */
const GIT_PORTS: Readonly<Record<string, string>> = { ssh: '22', 'git+ssh': '22', 'ssh+git': '22', git: '9418', https: '443', http: '80' };

export function remoteWhere(url: string): RemoteWhere {
  const helper = /^([A-Za-z][A-Za-z0-9+.-]*)::/u.exec(url);
  if (helper !== null) return { kind: 'helper', transport: helper[1] ?? '' };
  // Control characters and spaces never belong in a remote URL a person is shown.
  // eslint-disable-next-line no-control-regex -- the point is to find control characters
  if (url === '' || /[\u0000-\u0020\u007f]/u.test(url)) return { kind: 'invalid', reason: 'the URL is empty or holds spaces or control characters' };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//u.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) return schemeUrl(url, scheme);
  // git: "only if there are no slashes before the first colon" is it scp-like; else a local path.
  // An address in brackets (`[::1]:repo`, `git@[::1]:repo`) holds colons of its own.
  const colon = url.indexOf(':', url.includes('[') ? url.indexOf(']') : 0);
  const slash = url.indexOf('/');
  if (colon <= 0 || (slash !== -1 && slash < colon)) return { kind: 'local' };
  return scpLike(url.slice(0, colon));
}

/**
 * The authority of a `scheme://` URL in the plain form git and curl read alike: userinfo without
 * `@`, `/`, `\`, `?` or `#`; a host of letters, digits, dots, hyphens and underscores, or a
 * bracketed IPv6 address; a decimal port; then a slash or the end.
 */
const PLAIN_AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/\\?#]*@)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::([0-9]{1,5}))?(?:\/|$)/u;

function schemeUrl(url: string, scheme: string): RemoteWhere {
  if (scheme === 'file') return { kind: 'local' };
  const port = GIT_PORTS[scheme];
  if (port === undefined) return { kind: 'invalid', reason: `\`${scheme}://\` is not a transport ORACLE pushes over` };
  // git hands an https URL to curl and reads ssh:// and git:// itself; the WHATWG parser reads
  // some authorities otherwise (a backslash as a slash: `https://github.com\@127.0.0.2/` is
  // github.com to it and 127.0.0.2 to curl; `127.1` is 127.0.0.1 to it). Only an authority in the
  // plain form, which every reader takes alike, is judged (red team, session 33).
  const plain = PLAIN_AUTHORITY.exec(url);
  if (plain === null) return { kind: 'invalid', reason: 'the host part is not in the plain form git, curl and ORACLE all read alike (a backslash, a second `@`, an encoded or non-ASCII host)' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: 'invalid', reason: 'the URL does not parse' };
  }
  const host = parsed.hostname.toLowerCase().replace(/^\[(.*)\]$/u, '$1');
  if (host === '') return { kind: 'invalid', reason: 'the URL names no host' };
  const written = (plain[1] ?? '').toLowerCase().replace(/^\[(.*)\]$/u, '$1');
  const writtenPort = plain[2] ?? '';
  if (written !== host || (writtenPort !== '' && Number(writtenPort) !== Number(parsed.port === '' ? port : parsed.port))) {
    return { kind: 'invalid', reason: `the host is written \`${written}\` but a URL parser reads \`${host}\`: it may be read either way` };
  }
  return { kind: 'network', scheme, host, port: parsed.port === '' ? port : parsed.port, user: decodeURIComponent(parsed.username), password: parsed.password !== '' };
}

/** `[user@]host` before the colon; `[v6]` brackets are git's own way to write an address. */
function scpLike(authority: string): RemoteWhere {
  const at = authority.lastIndexOf('@');
  const user = at === -1 ? '' : authority.slice(0, at);
  const rawHost = at === -1 ? authority : authority.slice(at + 1);
  const host = rawHost.replace(/^\[(.*)\]$/u, '$1').toLowerCase();
  if (host === '' || !/^[a-z0-9.:_-]+$/u.test(host)) return { kind: 'invalid', reason: `\`${rawHost}\` is not a host name` };
  return { kind: 'network', scheme: 'ssh', host, port: '22', user, password: false };
}

/** The URL as a card may show it: a password (which git would send) is never printed. */
export function shownUrl(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/u, '$1:[password]@');
}

/**
 * A remote's URL placed for the egress rules, the same for a push and a fetch: a network host and
 * the allowlist entry that admits it (none: unlisted), a URL carrying a password, or somewhere
 * that is no network host (`local`: a path on this machine; `elsewhere`: a helper or a URL that
 * cannot be judged), each with the reason a card or a denial says.
 */
export type RemotePlace =
  | { readonly kind: 'host'; readonly host: string; readonly listed: EgressHost | undefined; /** Why it is not listed, when it is not. */ readonly unlisted: string }
  | { readonly kind: 'password' | 'local' | 'elsewhere'; readonly reason: string };

export function placeRemote(remote: string, url: string, egress: EgressPolicy): RemotePlace {
  const where = remoteWhere(url);
  switch (where.kind) {
    case 'local':
      return { kind: 'local', reason: `\`${remote}\` is a path on this machine (${shownUrl(url)})` };
    case 'helper':
      return { kind: 'elsewhere', reason: `\`${remote}\` uses the remote helper \`${where.transport}::\`, a program of its own` };
    case 'invalid':
      return { kind: 'elsewhere', reason: `\`${remote}\`'s URL cannot be judged: ${where.reason}` };
    case 'network':
      break;
  }
  if (where.password) return { kind: 'password', reason: `\`${remote}\`'s URL carries a password; ORACLE does not send a secret it was not told about` };
  // An allowlist entry without a port admits the port git uses for this scheme by default.
  const defaultPort = GIT_PORTS[where.scheme] ?? '22';
  return { kind: 'host', host: where.host, listed: listedFor(where.host, where.port, defaultPort, egress), unlisted: notListed(where.host, where.port, defaultPort, egress) };
}
