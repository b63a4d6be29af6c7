import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fixedBytes, fromBase64Url, toBase64Url, utf8, type Bytes } from './bytes.js';
import { encodeFields, LABELS, transcriptBytes, type Transcript } from './encoding.js';
import { comparisonCode, ephemeralEcdh, importPoint, importTlsSigner, pairingSecret, sealToken, transcriptMac, unsealToken, verifyTranscriptMac } from './protocol.js';
import { RateLimiter } from '../../server/core/pairing/rate-limit.js';
import { pairingUrl, parsePairingUrl } from './url.js';
import { validDeviceName } from './wire.js';

const subtle = globalThis.crypto.subtle;
const random = (n: number): Bytes => globalThis.crypto.getRandomValues(new Uint8Array(n));

async function sampleTranscript(): Promise<Transcript> {
  const d = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
  return {
    mode: 'qr',
    k: random(32),
    pid: 'pp_0123456789abcdef01234567',
    nonceS: random(32),
    es: (await ephemeralEcdh(subtle)).raw,
    commit: random(32),
    nonceP: random(32),
    ep: (await ephemeralEcdh(subtle)).raw,
    dPub: new Uint8Array(await subtle.exportKey('raw', d.publicKey)),
    name: 'Pixel 8',
  };
}

/** Every transcript field, changed in the smallest way. */
const MUTATIONS: readonly [string, (t: Transcript) => Transcript][] = [
  ['mode', (t) => ({ ...t, mode: 'code' })],
  ['k', (t) => ({ ...t, k: flip(t.k) })],
  ['pid', (t) => ({ ...t, pid: 'pp_0123456789abcdef01234568' })],
  ['nonceS', (t) => ({ ...t, nonceS: flip(t.nonceS) })],
  ['es', (t) => ({ ...t, es: flip(t.es) })],
  ['commit', (t) => ({ ...t, commit: flip(t.commit) })],
  ['nonceP', (t) => ({ ...t, nonceP: flip(t.nonceP) })],
  ['ep', (t) => ({ ...t, ep: flip(t.ep) })],
  ['dPub', (t) => ({ ...t, dPub: flip(t.dPub) })],
  ['name', (t) => ({ ...t, name: 'Pixel 9' })],
];

function flip(b: Bytes): Bytes {
  const out = new Uint8Array(b);
  out[out.length - 1] = (out[out.length - 1] ?? 0) ^ 1;
  return out;
}

describe('pairing transcript and mac (SPEC §9a step 3)', () => {
  it('verifies the mac over the transcript it was made for', async () => {
    const t = await sampleTranscript();
    const s = random(16);
    expect(await verifyTranscriptMac(subtle, s, t, await transcriptMac(subtle, s, t))).toBe(true);
  });

  it.each(MUTATIONS)('breaks the mac when %s changes', async (_field, mutate) => {
    const t = await sampleTranscript();
    const s = random(16);
    const mac = await transcriptMac(subtle, s, t);
    expect(await verifyTranscriptMac(subtle, s, mutate(t), mac)).toBe(false);
  });

  it('breaks the mac under another secret, and the typed code keys a different mac than s', async () => {
    const t = await sampleTranscript();
    const s = random(16);
    const mac = await transcriptMac(subtle, s, t);
    expect(await verifyTranscriptMac(subtle, random(16), t, mac)).toBe(false);
    expect(await verifyTranscriptMac(subtle, pairingSecret('code', s, '12345678'), t, mac)).toBe(false);
  });

  it('changes the comparison code with any transcript field or the reveal, and both sides agree', async () => {
    const t = await sampleTranscript();
    const reveal = random(32);
    const code = await comparisonCode(subtle, t, reveal);
    expect(code).toMatch(/^\d{6}$/u);
    expect(await comparisonCode(subtle, { ...t, k: new Uint8Array(t.k), name: 'Pixel 8' }, new Uint8Array(reveal))).toBe(code);
    const others = await Promise.all([...MUTATIONS.map(([, m]) => comparisonCode(subtle, m(t), reveal)), comparisonCode(subtle, t, flip(reveal))]);
    // 11 independent 6-digit codes: a collision with the original has odds of about 1 in 90,000.
    expect(others.filter((c) => c === code).length).toBeLessThanOrEqual(1);
  });

  it('encodes fields unambiguously: split points and labels change the bytes', () => {
    const a = encodeFields(LABELS.transcript, ['ab', 'c']);
    const b = encodeFields(LABELS.transcript, ['a', 'bc']);
    const c = encodeFields(LABELS.hello, ['ab', 'c']);
    expect(toBase64Url(a)).not.toBe(toBase64Url(b));
    expect(toBase64Url(a)).not.toBe(toBase64Url(c));
    // Known answer: label, then 4-byte big-endian lengths.
    expect([...encodeFields(LABELS.mac, ['qr'])]).toEqual([0, 0, 0, 18, ...utf8(LABELS.mac), 0, 0, 0, 2, 113, 114]);
  });

  it('names every field in the transcript encoding', async () => {
    const t = await sampleTranscript();
    for (const [field, mutate] of MUTATIONS) expect(toBase64Url(transcriptBytes(mutate(t))), field).not.toBe(toBase64Url(transcriptBytes(t)));
  });
});

describe('token seal (SPEC §9a step 5)', () => {
  it('opens only with the ECDH peer, the same secret, transcript and device id', async () => {
    const t = await sampleTranscript();
    const server = await ephemeralEcdh(subtle);
    const phone = await ephemeralEcdh(subtle);
    const s = random(16);
    const iv = random(12);
    const toPhone = await importPoint(subtle, phone.raw, 'ecdh');
    const toServer = await importPoint(subtle, server.raw, 'ecdh');
    if (toPhone === undefined || toServer === undefined) throw new TypeError('points');
    const sealed = await sealToken(subtle, { own: server.privateKey, peer: toPhone, secret: s, t, deviceId: 'dev_1' }, 'oracle_dev_x', iv);
    const open = (over: Partial<{ secret: Bytes; t: Transcript; deviceId: string }>) => unsealToken(subtle, { own: phone.privateKey, peer: toServer, secret: s, t, deviceId: 'dev_1', ...over }, sealed, iv);
    expect(new TextDecoder().decode(await open({}))).toBe('oracle_dev_x');
    expect(await open({ secret: random(16) })).toBeUndefined();
    expect(await open({ t: { ...t, name: 'other' } })).toBeUndefined();
    expect(await open({ deviceId: 'dev_2' })).toBeUndefined();
    const stranger = await ephemeralEcdh(subtle);
    expect(await unsealToken(subtle, { own: stranger.privateKey, peer: toServer, secret: s, t, deviceId: 'dev_1' }, sealed, iv)).toBeUndefined();
  });

  it('refuses points that are not raw uncompressed P-256', async () => {
    const ok = (await ephemeralEcdh(subtle)).raw;
    expect(await importPoint(subtle, ok, 'ecdh')).toBeDefined();
    expect(await importPoint(subtle, ok.slice(0, 33), 'ecdh')).toBeUndefined();
    expect(await importPoint(subtle, flip(ok), 'ecdsa')).toBeUndefined();
  });
});

describe('tls signer import', () => {
  it('derives the same k as the certificate pin (SHA-256 of the SPKI)', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const signer = await importTlsSigner(subtle, pem);
    const pin = createHash('sha256').update(createPublicKey(privateKey).export({ type: 'spki', format: 'der' })).digest();
    expect(toBase64Url(signer.k)).toBe(pin.toString('base64url'));
    expect(signer.key.extractable).toBe(false);
    await expect(importTlsSigner(subtle, 'not a pem')).rejects.toThrow(TypeError);
  });
});

describe('wire helpers', () => {
  it('round-trips base64url and refuses non-canonical or foreign spellings', () => {
    for (let n = 0; n < 40; n += 1) {
      const b = random(n);
      expect(fromBase64Url(toBase64Url(b))).toEqual(b);
      expect(toBase64Url(b)).toBe(Buffer.from(b).toString('base64url'));
    }
    expect(fromBase64Url('AB')).toBeUndefined(); // low bits set: not canonical
    expect(fromBase64Url('AA==')).toBeUndefined();
    expect(fromBase64Url('A+/A')).toBeUndefined();
    expect(fixedBytes('AAAA', 4)).toBeUndefined();
  });

  it('builds and parses the pairing link, with the secrets only in the fragment', () => {
    const link = { pid: 'pp_0123456789abcdef01234567', code: '01234567', k: random(32), s: random(16), expiresAt: 1_900_000_000_000 };
    const url = pairingUrl('https://192.0.2.1:8443/', link);
    expect(url.split('#')[0]).toBe('https://192.0.2.1:8443/pair');
    expect(parsePairingUrl(url)).toEqual({ origin: 'https://192.0.2.1:8443', link });
    expect(parsePairingUrl(url.replace('v=1', 'v=2'))).toBeUndefined();
    expect(parsePairingUrl(`${url}&x=1`)).toBeUndefined();
    expect(parsePairingUrl(url.replace('https:', 'http:'))).toBeUndefined();
  });

  it.each([
    ['Pixel 8', true],
    ['Ana’s iPhone 📱', true],
    ['', false],
    [' padded', false],
    ['evil\u202Eelif', false],
    ['zero\u200Bwidth', false],
    ['two\nlines', false],
    ['e\u0301', false], // not NFC
    ['x'.repeat(65), false],
  ])('device name %j valid: %s', (name, ok) => {
    expect(validDeviceName(name)).toBe(ok);
  });

  it('rate limits per address in a sliding window', () => {
    const clock = { t: 0 };
    const limiter = new RateLimiter({ max: 3, windowMs: 60_000 }, () => clock.t);
    expect([1, 2, 3, 4].map(() => limiter.allow('a'))).toEqual([true, true, true, false]);
    expect(limiter.allow('b')).toBe(true);
    clock.t = 60_001;
    expect(limiter.allow('a')).toBe(true);
  });
});
