import { fixedBytes, type Bytes } from './bytes.js';
import { PAIRING_MODES, type PairingMode } from './encoding.js';

/**
 * The pairing messages on the wire (SPEC §9a), shared by the server and the phone. Binary values
 * are base64url without padding; points are raw uncompressed P-256 (65 bytes); signatures are
 * P1363 (64 bytes). Untrusted input is checked field by field, in order, on plain objects only,
 * with one message per failure (jose style); unknown fields are refused.
 */
export const PID_PATTERN = /^pp_[0-9a-f]{24}$/u;
export const CODE_PATTERN = /^[0-9]{8}$/u;
export const NAME_MAX = 64;

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function snapshot(body: unknown, fields: readonly string[]): Record<string, unknown> | string {
  if (!isPlainObject(body)) return 'the body is one json object';
  const extra = Object.keys(body).find((key) => !fields.includes(key));
  if (extra !== undefined) return `unknown field \`${extra.slice(0, 32)}\``;
  return { ...body };
}

const bad = (message: string): { ok: false; message: string } => ({ ok: false, message });

/**
 * A device name is shown on the desktop as "Pair <name>?": NFC, 1–64 characters, no control,
 * format (bidi overrides, zero-width), private-use or unassigned characters, no line breaks, no
 * surrounding spaces. It is refused rather than cleaned, since the transcript binds its bytes.
 */
export function validDeviceName(name: unknown): name is string {
  if (typeof name !== 'string' || name.length === 0 || name.normalize('NFC') !== name || name.trim() !== name) return false;
  if ((name.match(/./gsu) ?? []).length > NAME_MAX) return false; // counted in code points
  return /^[^\p{C}\p{Zl}\p{Zp}]+$/u.test(name);
}

export type HelloRequest = { readonly pid: string } | { readonly typed: true };

/** `{pid}` after a QR scan; `{typed: true}` in the typed-code fallback (the one open typed session). */
export function parseHelloRequest(body: unknown): Parsed<HelloRequest> {
  const o = snapshot(body, ['pid', 'typed']);
  if (typeof o === 'string') return bad(o);
  if (o['typed'] === true && o['pid'] === undefined) return { ok: true, value: { typed: true } };
  if (typeof o['pid'] !== 'string' || !PID_PATTERN.test(o['pid'])) return bad('`pid` is a pairing session id');
  if (o['typed'] !== undefined) return bad('send either `pid` or `typed`');
  return { ok: true, value: { pid: o['pid'] } };
}

export interface HelloWire {
  readonly v: 1;
  readonly mode: PairingMode;
  readonly pid: string;
  readonly spki: string;
  readonly es: string;
  readonly nonce_s: string;
  readonly commit: string;
  readonly expires: number;
  readonly sig: string;
}

export interface Hello {
  readonly mode: PairingMode;
  readonly pid: string;
  readonly spki: Bytes;
  readonly es: Bytes;
  readonly nonceS: Bytes;
  readonly commit: Bytes;
  readonly expires: number;
  readonly sig: Bytes;
}

/** The phone's check of a hello answer (it still verifies k and the signature after this). */
export function parseHello(body: unknown): Parsed<Hello> {
  const o = snapshot(body, ['v', 'mode', 'pid', 'spki', 'es', 'nonce_s', 'commit', 'expires', 'sig']);
  if (typeof o === 'string') return bad(o);
  if (o['v'] !== 1) return bad('unsupported pairing version');
  const mode = PAIRING_MODES.find((m) => m === o['mode']);
  if (mode === undefined) return bad('`mode` is qr or code');
  const pid = o['pid'];
  if (typeof pid !== 'string' || !PID_PATTERN.test(pid)) return bad('`pid` is a pairing session id');
  const spki = fixedBytes(o['spki'], 91); // a P-256 SubjectPublicKeyInfo in DER is 91 bytes
  if (spki === undefined) return bad('`spki` is a p-256 subject public key info');
  const es = fixedBytes(o['es'], 65);
  if (es === undefined) return bad('`es` is a raw p-256 point');
  const nonceS = fixedBytes(o['nonce_s'], 32);
  if (nonceS === undefined) return bad('`nonce_s` is 32 bytes');
  const commit = fixedBytes(o['commit'], 32);
  if (commit === undefined) return bad('`commit` is 32 bytes');
  const expires = o['expires'];
  if (typeof expires !== 'number' || !Number.isSafeInteger(expires)) return bad('`expires` is a time in milliseconds');
  const sig = fixedBytes(o['sig'], 64);
  if (sig === undefined) return bad('`sig` is a p-256 signature');
  return { ok: true, value: { mode, pid, spki, es, nonceS, commit, expires, sig } };
}

export interface ClaimWire {
  readonly pid: string;
  readonly code: string;
  readonly name: string;
  readonly d_pub: string;
  readonly ep_pub: string;
  readonly nonce_s: string;
  readonly nonce_p: string;
  readonly mac: string;
}

export interface Claim {
  readonly pid: string;
  readonly code: string;
  readonly name: string;
  readonly dPub: Bytes;
  readonly ep: Bytes;
  /** Names the hello this claim answers. */
  readonly nonceS: Bytes;
  readonly nonceP: Bytes;
  readonly mac: Bytes;
}

/** The pid is parsed first and alone, so a malformed claim on a live session still counts against it. */
export function claimPid(body: unknown): string | undefined {
  if (!isPlainObject(body)) return undefined;
  const pid = body['pid'];
  return typeof pid === 'string' && PID_PATTERN.test(pid) ? pid : undefined;
}

export function parseClaim(body: unknown): Parsed<Claim> {
  const o = snapshot(body, ['pid', 'code', 'name', 'd_pub', 'ep_pub', 'nonce_s', 'nonce_p', 'mac']);
  if (typeof o === 'string') return bad(o);
  const pid = o['pid'];
  if (typeof pid !== 'string' || !PID_PATTERN.test(pid)) return bad('`pid` is a pairing session id');
  const code = o['code'];
  if (typeof code !== 'string' || !CODE_PATTERN.test(code)) return bad('`code` is 8 digits');
  const name = o['name'];
  if (!validDeviceName(name)) return bad(`\`name\` is 1 to ${NAME_MAX} printable characters`);
  const dPub = fixedBytes(o['d_pub'], 65);
  if (dPub === undefined) return bad('`d_pub` is a raw p-256 point');
  const ep = fixedBytes(o['ep_pub'], 65);
  if (ep === undefined) return bad('`ep_pub` is a raw p-256 point');
  const nonceS = fixedBytes(o['nonce_s'], 32);
  if (nonceS === undefined) return bad('`nonce_s` is 32 bytes');
  const nonceP = fixedBytes(o['nonce_p'], 32);
  if (nonceP === undefined) return bad('`nonce_p` is 32 bytes');
  const mac = fixedBytes(o['mac'], 32);
  if (mac === undefined) return bad('`mac` is 32 bytes');
  return { ok: true, value: { pid, code, name, dPub, ep, nonceS, nonceP, mac } };
}

export interface ClaimReplyWire {
  readonly state: 'waiting';
  /** Opens the hello's `commit`; the comparison code covers it. */
  readonly reveal: string;
}

export interface CollectWire {
  readonly pid: string;
  /** ECDSA by the device key D over collectInput(transcript). */
  readonly proof: string;
}

export function parseCollect(body: unknown): Parsed<{ readonly pid: string; readonly proof: Bytes }> {
  const o = snapshot(body, ['pid', 'proof']);
  if (typeof o === 'string') return bad(o);
  const pid = o['pid'];
  if (typeof pid !== 'string' || !PID_PATTERN.test(pid)) return bad('`pid` is a pairing session id');
  const proof = fixedBytes(o['proof'], 64);
  if (proof === undefined) return bad('`proof` is a p-256 signature');
  return { ok: true, value: { pid, proof } };
}

export interface ResultWire {
  readonly state: 'paired';
  readonly device_id: string;
  readonly sealed_token: string;
  readonly iv: string;
  readonly sig: string;
}

export interface ConfirmRequest {
  readonly pid: string;
  readonly accept: boolean;
}

export function parseConfirm(body: unknown): Parsed<ConfirmRequest> {
  const o = snapshot(body, ['pid', 'accept']);
  if (typeof o === 'string') return bad(o);
  const pid = o['pid'];
  if (typeof pid !== 'string' || !PID_PATTERN.test(pid)) return bad('`pid` is a pairing session id');
  const accept = o['accept'];
  if (typeof accept !== 'boolean') return bad('`accept` is true or false');
  return { ok: true, value: { pid, accept } };
}
