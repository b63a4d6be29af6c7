import { EGRESS_CODES, type EgressCode } from '../../../shared/outcome-codes.js';
import type * as Dns from 'node:dns/promises';
import type * as Http from 'node:http';
import type { IncomingMessage } from 'node:http';
import type * as Https from 'node:https';
import type { RequestOptions } from 'node:https';
import type { LookupFunction } from 'node:net';
import { classifyAddress, parseAddress, sameAddress, type AddressClass } from '../../core/net/ip-ranges.js';
import { lazyModule } from '../lazy-module.js';
import { abortedBy } from '../../core/halt.js';

/**
 * The egress broker (SPEC §6 net.fetch): sends one already-approved request and is the second
 * line behind server/core/decide/egress.ts, so it holds even for a host the decision allowed.
 * Per hop: allowlist, one DNS resolution, every address classified, then a socket to that very
 * address (no second lookup, which is what DNS rebinding needs). Redirects are followed by hand
 * and each hop is checked from scratch.
 */
export interface EgressTarget {
  /** Lower-case host name or IP literal; `*.example.com` matches its subdomains, never an IP. */
  readonly host: string;
  /** `undefined`: the scheme's default port only; `*`: any port; else that port. */
  readonly port: string | undefined;
  readonly why: string;
}

export interface BrokerOptions {
  readonly allow: readonly EgressTarget[];
  /** Injected so tests can rebind; production passes `systemResolver()`. Called once per hop. */
  readonly resolve: (host: string) => Promise<string[]>;
  /** Body bytes kept; past this the body is cut, the connection closed, `truncated` set. */
  readonly maxBytes: number;
  /** One budget for the whole fetch: every lookup, connection, redirect and body byte. */
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  /** Aborted when the caller withdraws the action: the fetch stops where it is. */
  readonly signal?: AbortSignal;
}

export interface BrokerRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Headers the gate itself adds (a named secret's value): sent as given, never stripped like
   * the model's `headers` are, and, like them, only to the first request's origin.
   */
  readonly credentials?: Readonly<Record<string, string>>;
}

/** What the broker refuses or meets on the way out: the egress codes of the one vocabulary. */
export const BROKER_ERROR_CODES = EGRESS_CODES;
export type BrokerErrorCode = EgressCode;

export interface BrokerFailure {
  readonly ok: false;
  readonly code: BrokerErrorCode;
  readonly message: string;
}

export interface BrokerResponse {
  readonly ok: true;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly truncated: boolean;
  readonly finalUrl: string;
  /** The address the socket connected to, for the audit log. */
  readonly address: string;
}

export type BrokerResult = BrokerResponse | BrokerFailure;

// Node's networking modules load on first use: the hook's runtime, which only judges, never loads them.
const dns = lazyModule<typeof Dns>('node:dns/promises');
const http = lazyModule<typeof Http>('node:http');
const https = lazyModule<typeof Https>('node:https');
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/u;
/** What node would refuse to send (and a CR or LF that would start a second header). */
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/u;
/** Headers that change where or how the request travels: refused, as decide refuses them. */
const REFUSED_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length', 'expect']);
/** Credentials and forwarding claims (SPEC §6): removed again here, defense in depth. */
const STRIPPED_HEADER = /^(?:authorization|cookie|proxy-.*|forwarded|x-forwarded-.*|x-real-ip|via)$/u;
const DEFAULT_PORT: Readonly<Record<string, string>> = { 'https:': '443', 'http:': '80' };
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
/** Classes an allowlist entry naming the exact IP literal still cannot open (see NOTES below). */
const NEVER_ALLOWED = new Set<AddressClass>(['metadata', 'unspecified', 'multicast', 'invalid']);

/** Production resolver: the OS resolver, every address it knows, IPv4 and IPv6. */
export function systemResolver(): (host: string) => Promise<string[]> {
  return async (host) => (await dns().lookup(host, { all: true })).map((entry) => entry.address);
}

/**
 * NOTES (choices the spec leaves open):
 * - A body past `maxBytes` is cut, not refused: the caller gets the first `maxBytes` bytes and
 *   `truncated: true`, and the connection is closed so no more is read.
 * - Only GET and HEAD follow redirects; any other method's redirect is EGRESS_REDIRECT, since the
 *   approval covered one request to one place. A redirect never resends a body, and sends the
 *   supplied headers only to the same origin (they were approved for that origin).
 * - At a redirect hop the allowlist and address checks keep their own codes (EGRESS_DENIED,
 *   EGRESS_DNS, EGRESS_PRIVATE_ADDRESS) with a message starting `redirect to`; EGRESS_REDIRECT is
 *   a redirect that cannot be followed at all: too many, a non-GET/HEAD method, a bad location.
 * - Naming an IP literal in the allowlist opens that address even if loopback or private, but
 *   never a metadata, unspecified or multicast one: those serve credentials or reach this host.
 */
export async function brokeredFetch(request: BrokerRequest, options: BrokerOptions): Promise<BrokerResult> {
  assertOptions(options);
  const method = request.method.toUpperCase();
  if (!METHODS.has(method)) return failure('ARG_SHAPE', `\`${request.method}\` is not an HTTP method the broker sends`);
  const headers = sanitiseHeaders(request.headers);
  if ('refused' in headers) return failure('ARG_SHAPE', headers.refused);
  const modelNames = new Set(Object.keys(headers.kept).map((name) => name.toLowerCase()));
  const credential = Object.entries(request.credentials ?? {}).find(([name, value]) => !HEADER_NAME.test(name) || BAD_HEADER_VALUE.test(value) || modelNames.has(name.toLowerCase()));
  if (credential !== undefined) return failure('ARG_SHAPE', `the value for header \`${credential[0]}\` cannot be sent (a line break or control character, or the header is given twice)`);
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort();
  }, options.timeoutMs);
  const withdraw = (): void => {
    deadline.abort();
  };
  if (options.signal?.aborted === true) withdraw();
  else options.signal?.addEventListener('abort', withdraw, { once: true });
  try {
    const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
    const result = await follow({ method, headers: { ...headers.kept, ...request.credentials }, body }, request.url, options, deadline.signal);
    if (options.signal?.aborted !== true) return result;
    // Stopped in flight, even between hops whose own exchange had ended: nothing it got is returned.
    return abortedBy(options.signal) === 'halt' ? failure('HALTED', 'HALT stopped the fetch') : failure('CANCELLED', 'the caller withdrew the action; the fetch was stopped');
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', withdraw);
  }
}

interface Outgoing {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
}

/** A hop that passed every check: where to connect and what to call it. */
interface Hop {
  readonly url: URL;
  readonly host: string;
  readonly port: string;
  readonly address: string;
  readonly literal: boolean;
}

async function follow(first: Outgoing, url: string, options: BrokerOptions, signal: AbortSignal): Promise<BrokerResult> {
  let outgoing = first;
  let next = url;
  let previous: URL | undefined;
  for (let hop = 0; ; hop += 1) {
    const checked = await checkHop(next, previous, options, signal);
    if ('code' in checked) return checked;
    const reply = await exchange(checked, outgoing, options.maxBytes, signal);
    if ('code' in reply) return reply;
    if (reply.location === undefined) return { ok: true, ...reply.response, finalUrl: checked.url.href, address: checked.address };
    if (outgoing.method !== 'GET' && outgoing.method !== 'HEAD') {
      return failure('EGRESS_REDIRECT', `a ${outgoing.method} request is not redirected; the approval covered \`${checked.url.href}\` only`);
    }
    if (hop >= options.maxRedirects) return failure('EGRESS_REDIRECT', `more than ${options.maxRedirects} redirects`);
    // The supplied headers were approved for this origin only: another origin gets none of them.
    const headers = originOf(reply.location, checked.url) === checked.url.origin ? outgoing.headers : {};
    outgoing = { method: outgoing.method, headers, body: undefined };
    previous = checked.url;
    next = reply.location;
  }
}

/** SPEC §6, once per hop: a URL we send to, the allowlist, one resolution, every address. */
async function checkHop(text: string, previous: URL | undefined, options: BrokerOptions, signal: AbortSignal): Promise<Hop | BrokerFailure> {
  const url = parseTarget(text, previous);
  if (typeof url === 'string') return previous === undefined ? failure('URL_INVALID', url) : failure('EGRESS_REDIRECT', `redirect refused: ${url}`);
  const said = previous === undefined ? '' : 'redirect to ';
  const host = bareHost(url.hostname);
  const port = url.port === '' ? (DEFAULT_PORT[url.protocol] ?? '') : url.port;
  const checked = await checkDestination({ host, port, protocol: url.protocol }, options, signal, said);
  return 'code' in checked ? checked : { url, host, port, ...checked };
}

/**
 * One destination against the allowlist, resolved once, every address classified (the broker's
 * hops and the per-job egress proxy's CONNECTs): the address to connect to, or why not.
 * `protocol` gives an entry without a port its default (`https:` → 443).
 */
export async function checkDestination(
  target: { readonly host: string; readonly port: string; readonly protocol: string },
  options: Pick<BrokerOptions, 'allow' | 'resolve'> & { readonly timeoutMs?: number },
  signal: AbortSignal,
  said = '',
): Promise<{ readonly address: string; readonly literal: boolean } | BrokerFailure> {
  const host = bareHost(target.host);
  const { port } = target;
  // Only what a resolver reads whole: a NUL or control character could cut the name it resolves.
  if (!/^[a-z0-9.-]{1,253}$|^[0-9a-f:.]{2,45}$/u.test(host)) return failure('URL_INVALID', `${said}\`${host.slice(0, 64)}\` is not a host name or IP`);
  if (!options.allow.some((entry) => hostMatches(entry.host, host) && portMatches(entry.port, port, target.protocol))) {
    return failure('EGRESS_DENIED', `${said}\`${host}:${port}\` is not in the egress allowlist`);
  }
  // An IP literal matched only an entry naming exactly it (hostMatches), so it is explicit.
  const literal = parseAddress(host) !== undefined;
  const addresses = literal ? [host] : await resolveOnce(host, options, signal);
  if ('code' in addresses) return addresses;
  for (const address of addresses) {
    const cls = classifyAddress(address);
    if (cls === 'public' || (literal && !NEVER_ALLOWED.has(cls))) continue;
    return failure('EGRESS_PRIVATE_ADDRESS', `${said}\`${host}\` ${literal ? 'is' : 'resolves to'} \`${address}\` (${cls})`);
  }
  const [address] = addresses;
  if (address === undefined) return failure('EGRESS_DNS', `${said}\`${host}\` has no address`);
  return { address, literal };
}

function parseTarget(text: string, base: URL | undefined): URL | string {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return `\`${text}\` is not a URL`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `scheme \`${url.protocol}\` is not http or https`;
  if (url.username !== '' || url.password !== '') return 'credentials in a URL are refused';
  return url;
}

function originOf(location: string, base: URL): string | undefined {
  try {
    return new URL(location, base).origin;
  } catch {
    return undefined;
  }
}

async function resolveOnce(host: string, options: Pick<BrokerOptions, 'resolve'> & { readonly timeoutMs?: number }, signal: AbortSignal): Promise<string[] | BrokerFailure> {
  try {
    const addresses = await untilAborted(options.resolve(host), signal);
    return addresses.length === 0 ? failure('EGRESS_DNS', `\`${host}\` has no address`) : addresses;
  } catch (e) {
    if (signal.aborted) return failure('EGRESS_TIMEOUT', `no address for \`${host}\`${options.timeoutMs === undefined ? ' in time' : ` within ${String(options.timeoutMs)} ms`}`);
    return failure('EGRESS_DNS', `\`${host}\` did not resolve (${errorCode(e)})`);
  }
}

/** A redirect to follow (its body unread), or the final response. */
type Reply = { readonly location: string } | { readonly location: undefined; readonly response: Omit<BrokerResponse, 'ok' | 'finalUrl' | 'address'> };

async function exchange(hop: Hop, outgoing: Outgoing, maxBytes: number, signal: AbortSignal): Promise<Reply | BrokerFailure> {
  try {
    const res = await send(hop, outgoing, signal);
    const status = res.statusCode ?? 0;
    const location = REDIRECT_STATUS.has(status) ? res.headers.location : undefined;
    if (location !== undefined) {
      res.destroy();
      return { location };
    }
    const { body, truncated } = await readCapped(res, maxBytes, signal);
    return { location: undefined, response: { status, headers: flatHeaders(res), body, truncated } };
  } catch (e) {
    if (signal.aborted) return failure('EGRESS_TIMEOUT', `no complete answer from \`${hop.host}\` in time`);
    return failure('EGRESS_NETWORK', `request to \`${hop.host}\` failed (${errorCode(e)})`);
  }
}

/** fromEntries defines own properties, so a `__proto__` header cannot reach a prototype. */
function flatHeaders(res: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(res.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]])));
}

/**
 * INVARIANT: the socket goes to `hop.address`, the address just checked. `host` is that IP, so
 * node never looks the name up; `lookup` refuses in case it ever tried. The name travels only in
 * the Host header and TLS SNI, and the certificate is verified against the name.
 */
function send(hop: Hop, outgoing: Outgoing, signal: AbortSignal): Promise<IncomingMessage> {
  const { request } = hop.url.protocol === 'https:' ? https() : http();
  const options: RequestOptions = {
    host: hop.address,
    port: Number(hop.port),
    method: outgoing.method,
    path: `${hop.url.pathname}${hop.url.search}`,
    headers: { ...outgoing.headers, Host: hop.url.host },
    agent: false,
    lookup: noSecondLookup,
    signal,
    servername: hop.literal ? '' : hop.host,
  };
  return new Promise((resolve, reject) => {
    const req = request(options, resolve);
    req.on('error', reject);
    req.end(outgoing.body);
  });
}

const noSecondLookup: LookupFunction = (hostname, _options, callback) => {
  callback(Object.assign(new Error(`refused a second lookup of \`${hostname}\``), { code: 'EGRESS_SECOND_LOOKUP' }), '', 4);
};

/** Reads at most `maxBytes`; leaving the loop early destroys the stream and its socket. */
async function readCapped(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  const onAbort = (): void => {
    res.destroy(new Error('deadline'));
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      const room = maxBytes - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (chunk.length > room) {
        truncated = true;
        break;
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return { body: Buffer.concat(chunks, size), truncated };
}

function sanitiseHeaders(supplied: Readonly<Record<string, string>>): { kept: Record<string, string> } | { refused: string } {
  const kept: Record<string, string> = Object.create(null) as Record<string, string>;
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(supplied)) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name) || BAD_HEADER_VALUE.test(value)) return { refused: `header \`${name}\` is malformed` };
    if (REFUSED_HEADERS.has(lower)) return { refused: `header \`${name}\` changes where or how the request travels` };
    if (seen.has(lower)) return { refused: `header \`${name}\` is given twice` };
    seen.add(lower);
    if (!STRIPPED_HEADER.test(lower)) kept[name] = value;
  }
  return { kept };
}

function bareHost(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/u, '');
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** IP literals match only an entry naming the same address: `*.0.0.1` must not open 127.0.0.1. */
function hostMatches(pattern: string, host: string): boolean {
  const allowed = bareHost(pattern.trim());
  if (parseAddress(host) !== undefined) return sameAddress(allowed, host);
  if (allowed.startsWith('*.')) return host.endsWith(allowed.slice(1)) && host.length > allowed.length - 1;
  return allowed === host;
}

function portMatches(allowed: string | undefined, port: string, protocol: string): boolean {
  if (allowed === '*') return true;
  return (allowed ?? DEFAULT_PORT[protocol]) === port;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(new Error('deadline'));
    };
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

function assertOptions(options: BrokerOptions): void {
  for (const key of ['maxBytes', 'timeoutMs', 'maxRedirects'] as const) {
    if (!Number.isSafeInteger(options[key]) || options[key] < 0) throw new TypeError(`broker option \`${key}\` must be a non-negative integer`);
  }
}

function errorCode(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : 'unknown error';
}

function failure(code: BrokerErrorCode, message: string): BrokerFailure {
  return { ok: false, code, message };
}
