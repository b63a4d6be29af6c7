import { maxTier } from '../../../shared/tiers.js';
import { classifyAddress, parseAddress } from '../net/ip-ranges.js';
import { REFUSED_HEADERS } from './egress.js';
import { refused, type Outcome } from './outcome.js';
import { redact, redactDeep } from '../redact/index.js';

/** Below this length a stored value is hidden in outputs but does not refuse a request that holds it (a PIN `42` in a page number). */
export const MIN_REFUSED_SECRET = 8;

/** The kind of the first secret the redaction sink sees in `text`, if any. */
const looksSecret = (text: string): string | undefined => redact(text).redactions[0]?.kind;

/** One header a request carries a stored secret in (net.fetch `secrets`). */
export interface SecretHeader {
  /** The stored secret's name (`name`, not `secret`: a preview hides what sits under a secret-looking key). */
  readonly name: string;
  readonly prefix: string;
}

/** Headers that say where a request came from or how it travels: never where a secret goes. */
const NOT_FOR_SECRETS = /^(?:proxy-.*|forwarded|x-forwarded-.*|x-real-ip|via)$/u;

/**
 * A net.fetch that names stored secrets (issue 14, egress honesty): the card says which secret
 * goes in which header to which host, and a person decides (T2, never lowered by a tier rule),
 * like a program handed credentials. The value itself is read only when the request leaves.
 * Refused: a secret over plain http to anything but a loopback address (it would cross the
 * network readable), a header the model also supplies, one that travels with the connection.
 */
export function withFetchSecrets(
  outcome: Extract<Outcome, { ok: true }>,
  secrets: Readonly<Record<string, SecretHeader>>,
  request: { readonly url: string; readonly headers: Readonly<Record<string, string>> },
): Outcome {
  const url = new URL(request.url);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (url.protocol !== 'https:' && !(parseAddress(host) !== undefined && classifyAddress(host) === 'loopback')) {
    return refused('EGRESS_DENIED', 'net.fetch', `a secret is sent over https only (or plain http to a loopback address); \`${url.origin}\` would carry it readable`);
  }
  const supplied = new Set(Object.keys(request.headers).map((h) => h.toLowerCase()));
  const named = new Set<string>();
  const sent: string[] = [];
  for (const [header, { name: secret, prefix }] of Object.entries(secrets)) {
    const lower = header.toLowerCase();
    // A header name is sent as written too: it may not carry a secret of its own.
    const carried = looksSecret(header);
    if (carried !== undefined) return refused('EGRESS_DENIED', 'net.fetch', `a header name under \`secrets\` holds what looks like a secret (${carried})`);
    if (REFUSED_HEADERS.has(lower) || NOT_FOR_SECRETS.test(lower)) return refused('ARG_SHAPE', 'net.fetch', `header \`${header}\` cannot carry a secret: it says how the request travels`);
    if (supplied.has(lower) || named.has(lower)) return refused('ARG_SHAPE', 'net.fetch', `header \`${header}\` is given twice (in \`headers\` and \`secrets\`, or twice in \`secrets\`)`);
    named.add(lower);
    sent.push(`\`${secret}\` in header \`${header}\`${prefix === '' ? '' : ` after \`${prefix}\``}`);
  }
  const reason = `sends the secret${sent.length > 1 ? 's' : ''} ${sent.join(', ')} to \`${url.host}\``;
  return { ok: true, tier: maxTier(outcome.tier, 'T2'), rule: outcome.rule, reasons: [...outcome.reasons, reason], floor: maxTier(outcome.floor ?? 'T0', 'T2') };
}

/** What of a net.fetch goes out as the model wrote it. */
export interface FetchParts {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly secrets: Readonly<Record<string, SecretHeader>>;
}

/**
 * Where a net.fetch holds a value of the gate's secret store (`stored`: looked up for the
 * judgement, read again by the executor at send time), written whole or wholly encoded as the
 * sink knows (URL-encoded, JSON-escaped, base64): in the URL, a header, the body, or a header name
 * or `prefix` under `secrets` (both go out as written). Says where, never the value. A model that
 * encodes a value some other way (one character percent-encoded) is not caught: the egress
 * allowlist is what holds against a determined one.
 */
export function storedSecretIn(request: FetchParts, stored: readonly string[]): string | undefined {
  if (stored.length === 0) return undefined;
  const holds = (text: string): boolean => redact(text, stored).redactions.some((r) => r.kind === 'known-secret');
  if (holds(request.url)) return 'URL';
  // Where it was found, never what: a header name that holds the value is not quoted.
  for (const [name, value] of Object.entries(request.headers)) {
    if (holds(name)) return 'a header name';
    if (holds(`${name}: ${value}`)) return `header \`${name}\``;
  }
  if (request.body !== '' && holds(request.body)) return 'body';
  for (const [name, { prefix }] of Object.entries(request.secrets)) {
    if (holds(name)) return 'a header name under `secrets`';
    if (holds(`${name}: ${prefix}`)) return `the \`prefix\` of header \`${name}\` under \`secrets\``;
  }
  return undefined;
}

/**
 * Egress honesty (issue 14 point 7): what leaves the machine is exactly what the card shows, and
 * a card shows secrets redacted. So a request whose URL, headers or body the card would show with
 * anything redacted is refused outright before anyone is asked (never sent, never "redacted" on a
 * card while the raw bytes go out). The card's own redaction judges it (`redactDeep`, as
 * approval-desk.ts `cardPreview` does): a value the text sink recognises, and any value under a
 * secret-named header (`X-Password: hunter2`), which the card hides whole however short it is (red
 * team, session 33: short values under secret-named headers left in plain text while the card
 * showed `[REDACTED:secret-field]`). `sentHeaders` are those the broker sends (judgeFetch strips
 * credentials and forwarding claims). Names where it was found, never the value.
 */
export function patternSecretIn(request: FetchParts, sentHeaders: Readonly<Record<string, string>> = request.headers): string | undefined {
  // A header as it goes on the wire, `name: value`, may read as an assignment where neither part alone does.
  for (const [name, value] of Object.entries(request.headers)) {
    const kind = looksSecret(`${name}: ${value}`);
    if (kind !== undefined) return looksSecret(name) === undefined ? `header \`${name}\` (${kind})` : `a header name (${kind})`;
  }
  // What the broker strips (Authorization, Cookie, …) never leaves: the card's view of what does.
  // The names and prefixes under `secrets` go on the card, and a prefix goes out as written.
  const first = redactDeep({ url: request.url, headers: sentHeaders, body: request.body, secrets: request.secrets }).redactions[0];
  if (first === undefined) return undefined;
  const [, part, header] = first.path.split('/');
  if (part === 'url') return `URL (${first.kind})`;
  if (part === 'body') return `body (${first.kind})`;
  if (part === 'secrets') return `\`secrets\` entry of a header (${first.kind}): its name or prefix`;
  // The pointer names a header as the card shows it: a name that is itself a secret is a marker.
  if (first.in === 'key') return `a header name (${first.kind})`;
  const name = (header ?? '').replace(/~1/gu, '/').replace(/~0/gu, '~');
  return first.kind === 'secret-field' ? `header \`${name}\` (a secret-named header, whose value a card hides whole)` : `header \`${name}\` (${first.kind})`;
}
