import { OracleError } from '../oracle-error.js';
import { fixedBytes, fromBase64Url, fromUtf8, toBase64Url, bytesEqual, type Bytes } from './bytes.js';
import { collectInput, helloInput, resultInput, type PairingMode, type Transcript } from './encoding.js';
import {
  comparisonCode,
  ecdsaSign,
  ecdsaVerify,
  ephemeralEcdh,
  importPoint,
  pairingSecret,
  rawPublic,
  sha256,
  transcriptMac,
  unsealToken,
  type Key,
} from './protocol.js';
import { parsePairingUrl } from './url.js';
import { parseHello, type ClaimWire, type Hello } from './wire.js';

/**
 * The phone side of the pairing protocol (SPEC §9a), used by the PWA and by the scripted test phone, with
 * WebCrypto only (globalThis.crypto): no node:crypto, no Buffer. The encoding and KDF helpers it
 * shares with the server are the pure WebCrypto modules beside it.
 */
export interface Transport {
  post(path: string, body: unknown): Promise<{ readonly status: number; readonly body: unknown }>;
}

export interface Paired {
  readonly deviceId: string;
  readonly token: string;
  /** The device key D; its private half is non-extractable. */
  readonly deviceKey: { readonly privateKey: Key; readonly publicKey: Key };
  /** The pinned SHA-256 of the server SPKI. */
  readonly k: Bytes;
  readonly comparison: string;
}

export class PairingError extends OracleError<'PAIRING_FAILED'> {
  constructor(
    readonly step: 'hello' | 'claim' | 'result',
    readonly status: number,
    readonly body: unknown,
    message: string,
  ) {
    super('PAIRING_FAILED', message);
  }
}

const subtle = globalThis.crypto.subtle;
const random = (n: number): Bytes => globalThis.crypto.getRandomValues(new Uint8Array(n));

/** The state a phone carries between the protocol steps; tests may stop after any of them. */
export class PhoneSession {
  hello: Hello | undefined;
  serverKey: Key | undefined;
  transcript: Transcript | undefined;
  ep: { readonly privateKey: Key; readonly raw: Bytes } | undefined;
  deviceKey: { readonly privateKey: Key; readonly publicKey: Key } | undefined;
  comparison: string | undefined;
  lastClaim: ClaimWire | undefined;

  private constructor(
    readonly transport: Transport,
    readonly mode: PairingMode,
    /** QR mode: from the fragment; typed mode: k is learned (TOFU) from the hello. */
    private readonly link: { readonly pid: string | undefined; readonly code: string; readonly k: Bytes | undefined; readonly s: Bytes },
  ) {}

  static fromQr(url: string, transport: Transport): PhoneSession {
    const parsed = parsePairingUrl(url);
    if (parsed === undefined) throw new TypeError('not a pairing link');
    return new PhoneSession(transport, 'qr', { pid: parsed.link.pid, code: parsed.link.code, k: parsed.link.k, s: parsed.link.s });
  }

  /** Typed fallback: only the 8 digits; the comparison code is what stops a relay. */
  static fromCode(code: string, transport: Transport): PhoneSession {
    return new PhoneSession(transport, 'code', { pid: undefined, code, k: undefined, s: new Uint8Array(0) });
  }

  get secret(): Bytes {
    return pairingSecret(this.mode, this.link.s, this.link.code);
  }

  /** Step 2: fetch the offer, check SHA-256(SPKI) = k and the TLS key's signature. */
  async doHello(): Promise<Hello> {
    const res = await this.transport.post('/api/v1/pair/hello', this.link.pid === undefined ? { typed: true } : { pid: this.link.pid });
    if (res.status !== 200) throw new PairingError('hello', res.status, res.body, 'hello refused');
    const parsed = parseHello(res.body);
    if (!parsed.ok) throw new PairingError('hello', res.status, res.body, parsed.message);
    const hello = parsed.value;
    if (hello.mode !== this.mode || (this.link.pid !== undefined && hello.pid !== this.link.pid)) throw new PairingError('hello', res.status, res.body, 'hello for another session');
    const k = await sha256(subtle, hello.spki);
    if (this.link.k !== undefined && !bytesEqual(k, this.link.k)) throw new PairingError('hello', res.status, res.body, 'server key does not match the pin');
    const serverKey = await subtle.importKey('spki', hello.spki, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
    if (!(await ecdsaVerify(subtle, serverKey, hello.sig, helloInput(hello)))) throw new PairingError('hello', res.status, res.body, 'hello signature does not verify');
    this.hello = hello;
    this.serverKey = serverKey;
    return hello;
  }

  /** Step 3: make D (non-extractable) and Ep and MAC the transcript; the claim is not sent yet. */
  async prepareClaim(name: string): Promise<ClaimWire> {
    const hello = this.hello;
    if (hello === undefined) throw new TypeError('hello first');
    const pair = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    this.deviceKey = { privateKey: pair.privateKey, publicKey: pair.publicKey };
    this.ep = await ephemeralEcdh(subtle);
    const t: Transcript = { mode: this.mode, k: await sha256(subtle, hello.spki), pid: hello.pid, nonceS: hello.nonceS, es: hello.es, commit: hello.commit, nonceP: random(32), ep: this.ep.raw, dPub: await rawPublic(subtle, pair.publicKey), name };
    this.transcript = t;
    const mac = await transcriptMac(subtle, this.secret, t);
    const b = toBase64Url;
    this.lastClaim = { pid: t.pid, code: this.link.code, name, d_pub: b(t.dPub), ep_pub: b(t.ep), nonce_s: b(t.nonceS), nonce_p: b(t.nonceP), mac: b(mac) };
    return this.lastClaim;
  }

  /** Sends the prepared claim; checks that the reveal opens the hello's commitment; derives the comparison code. */
  async sendClaim(): Promise<string> {
    const { hello, transcript: t, lastClaim } = this;
    if (hello === undefined || t === undefined || lastClaim === undefined) throw new TypeError('prepare the claim first');
    const res = await this.transport.post('/api/v1/pair/claim', lastClaim);
    if (res.status !== 200) throw new PairingError('claim', res.status, res.body, 'claim refused');
    const reveal = fixedBytes(typeof res.body === 'object' && res.body !== null && 'reveal' in res.body ? res.body.reveal : undefined, 32);
    if (reveal === undefined || !bytesEqual(await sha256(subtle, reveal), hello.commit)) throw new PairingError('claim', res.status, res.body, 'the reveal does not open the commitment');
    this.comparison = await comparisonCode(subtle, t, reveal);
    return this.comparison;
  }

  async doClaim(name: string): Promise<string> {
    await this.prepareClaim(name);
    return this.sendClaim();
  }

  /** Step 5: prove D, long-poll for the result, verify the TLS signature, unseal the token. */
  async doResult(waitSeconds = 20, maxPolls = 10): Promise<Paired> {
    const { hello, serverKey, transcript: t, ep, deviceKey, comparison } = this;
    if (hello === undefined || serverKey === undefined || t === undefined || ep === undefined || deviceKey === undefined || comparison === undefined) throw new TypeError('claim first');
    const proof = toBase64Url(await ecdsaSign(subtle, deviceKey.privateKey, collectInput(t)));
    for (let poll = 1; ; poll += 1) {
      const res = await this.transport.post(`/api/v1/pair/result?wait=${String(waitSeconds)}`, { pid: t.pid, proof });
      if (res.status === 202 && poll < maxPolls && waitSeconds > 0) continue;
      if (res.status !== 200 || typeof res.body !== 'object' || res.body === null) throw new PairingError('result', res.status, res.body, 'result refused');
      const body = res.body as Record<string, unknown>;
      const deviceId = body['device_id'];
      const sealed = typeof body['sealed_token'] === 'string' ? fromBase64Url(body['sealed_token']) : undefined;
      const iv = fixedBytes(body['iv'], 12);
      const sig = fixedBytes(body['sig'], 64);
      if (typeof deviceId !== 'string' || sealed === undefined || iv === undefined || sig === undefined) throw new PairingError('result', res.status, res.body, 'malformed result');
      if (!(await ecdsaVerify(subtle, serverKey, sig, resultInput(t, deviceId, iv, sealed)))) throw new PairingError('result', res.status, res.body, 'result signature does not verify');
      const es = await importPoint(subtle, hello.es, 'ecdh');
      if (es === undefined) throw new PairingError('result', res.status, res.body, 'bad server key');
      const plain = await unsealToken(subtle, { own: ep.privateKey, peer: es, secret: this.secret, t, deviceId }, sealed, iv);
      const token = plain === undefined ? undefined : fromUtf8(plain);
      if (token === undefined) throw new PairingError('result', res.status, res.body, 'the token does not unseal');
      return { deviceId, token, deviceKey, k: t.k, comparison };
    }
  }
}

/** The whole flow; `onCompare` plays the person who compares both screens and confirms on the desktop. */
export async function pair(session: PhoneSession, name: string, onCompare: (code: string, pid: string) => Promise<void>): Promise<Paired> {
  const hello = await session.doHello();
  const code = await session.doClaim(name);
  const [paired] = await Promise.all([session.doResult(), onCompare(code, hello.pid)]);
  return paired;
}
