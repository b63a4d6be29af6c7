import { describe, expect, it } from 'vitest';
import { toBase64Url } from '../../shared/pairing/bytes.js';
import { helloInput } from '../../shared/pairing/encoding.js';
import { ecdsaSign, ephemeralEcdh, sha256, transcriptMac, pairingSecret } from '../../shared/pairing/protocol.js';
import { parseHello } from '../../shared/pairing/wire.js';
import { pairingHarness, testSigner } from '../fixtures/pairing-server.js';
import { pair, PhoneSession, type Transport } from '../fixtures/phone-client.js';

/**
 * SPEC §15 "pairing relay": a party in the middle that terminates the phone's TLS (a
 * clicked-through certificate) sees every message. It must not swap the server's keys, pair its
 * own device key without s, or collect the token; in the typed fallback the comparison code
 * exposes it (SPEC §9a).
 */
const subtle = globalThis.crypto.subtle;

describe('pairing relay (SPEC §9a)', () => {
  it('cannot swap Es or the nonce in the signed hello: the phone refuses it', async () => {
    const h = await pairingHarness();
    const start = await h.start();
    const own = await ephemeralEcdh(subtle);
    const swap: Transport = {
      async post(path, body) {
        const res = await h.transport('192.0.2.5').post(path, body);
        return path.endsWith('/hello') ? { ...res, body: { ...(res.body as object), es: toBase64Url(own.raw) } } : res;
      },
    };
    await expect(PhoneSession.fromQr(start.url ?? '', swap).doHello()).rejects.toMatchObject({ message: 'hello signature does not verify' });
    const nonce: Transport = {
      async post(path, body) {
        const res = await h.transport('192.0.2.5').post(path, body);
        return { ...res, body: { ...(res.body as object), nonce_s: toBase64Url(new Uint8Array(32)) } };
      },
    };
    await expect(PhoneSession.fromQr(start.url ?? '', nonce).doHello()).rejects.toMatchObject({ message: 'hello signature does not verify' });
  });

  it('cannot answer with its own key (the pin k fails) or with another session\'s hello', async () => {
    const h = await pairingHarness();
    const a = await h.start();
    const b = await h.start();
    const relaySigner = await testSigner();
    // A complete, well-signed hello from the relay's own key.
    const forged: Transport = {
      async post() {
        const eph = await ephemeralEcdh(subtle);
        const reveal = globalThis.crypto.getRandomValues(new Uint8Array(32));
        const offer = { mode: 'qr' as const, pid: a.pid, spki: relaySigner.spki, es: eph.raw, nonceS: globalThis.crypto.getRandomValues(new Uint8Array(32)), commit: await sha256(subtle, reveal), expires: a.expires_at };
        const sig = await ecdsaSign(subtle, relaySigner.key, helloInput(offer));
        const b64 = toBase64Url;
        return { status: 200, body: { v: 1, mode: 'qr', pid: a.pid, spki: b64(offer.spki), es: b64(offer.es), nonce_s: b64(offer.nonceS), commit: b64(offer.commit), expires: offer.expires, sig: b64(sig) } };
      },
    };
    await expect(PhoneSession.fromQr(a.url ?? '', forged).doHello()).rejects.toMatchObject({ message: 'server key does not match the pin' });
    // A genuine hello, but for session b, offered to a phone that scanned a.
    const crossed: Transport = { post: () => h.transport('192.0.2.5').post('/api/v1/pair/hello', { pid: b.pid }) };
    await expect(PhoneSession.fromQr(a.url ?? '', crossed).doHello()).rejects.toMatchObject({ message: 'hello for another session' });
  });

  it('cannot pair its own key in QR mode even knowing the code: the mac is keyed with s, not the code', async () => {
    const h = await pairingHarness();
    const start = await h.start();
    const phone = PhoneSession.fromQr(start.url ?? '', h.transport('192.0.2.5'));
    await phone.doHello();
    const seen = await phone.prepareClaim('Pixel 8'); // what the relay reads, code included
    // The relay's own claim on the phone's hello, MAC'd with everything it knows (the code).
    const hello = phone.hello;
    if (hello === undefined) throw new TypeError('no hello');
    const d = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const ep = await ephemeralEcdh(subtle);
    const t = { mode: 'qr' as const, k: await sha256(subtle, hello.spki), pid: start.pid, nonceS: hello.nonceS, es: hello.es, commit: hello.commit, nonceP: globalThis.crypto.getRandomValues(new Uint8Array(32)), ep: ep.raw, dPub: new Uint8Array(await subtle.exportKey('raw', d.publicKey)), name: 'Pixel 8' };
    for (const mode of ['qr', 'code'] as const) {
      const mac = await transcriptMac(subtle, pairingSecret('code', new Uint8Array(0), seen.code), { ...t, mode });
      const b = toBase64Url;
      const res = await h.transport('192.0.2.66').post('/api/v1/pair/claim', { ...seen, d_pub: b(t.dPub), ep_pub: b(t.ep), nonce_p: b(t.nonceP), mac: b(mac) });
      expect(res, mode).toMatchObject({ status: 403, body: { error: { pairing: 'PAIRING_PROOF' } } });
    }
    expect(await h.view(start.pid)).toMatchObject({ state: 'open', attempts: 2 });
    // The phone's own claim still goes through; the relay's attempts only counted.
    await expect(phone.sendClaim()).resolves.toMatch(/^\d{6}$/u);
  });

  it('typed fallback: a relay that learns the code can claim, but the two screens show different codes', async () => {
    const h = await pairingHarness();
    const start = await h.start('code');
    const relaySigner = await testSigner();
    const relay = { eph: await ephemeralEcdh(subtle), reveal: globalThis.crypto.getRandomValues(new Uint8Array(32)) };
    const upstream = h.transport('192.0.2.66');
    let upstreamComparison = '';
    // The relay plays the server to the phone (its own key: a typed-code phone has no pin yet)
    // and the phone to the server (its own device key), reading the code from the phone's claim.
    const mitm: Transport = {
      async post(path, body) {
        if (path.endsWith('/hello')) {
          const real = parseHello((await upstream.post(path, body)).body);
          if (!real.ok) throw new TypeError(real.message);
          const offer = { ...real.value, spki: relaySigner.spki, es: relay.eph.raw, commit: await sha256(subtle, relay.reveal) };
          const b = toBase64Url;
          return { status: 200, body: { v: 1, mode: offer.mode, pid: offer.pid, spki: b(offer.spki), es: b(offer.es), nonce_s: b(offer.nonceS), commit: b(offer.commit), expires: offer.expires, sig: b(await ecdsaSign(subtle, relaySigner.key, helloInput(offer))) } };
        }
        if (path.endsWith('/claim')) {
          const code = (body as { code: string }).code;
          const own = PhoneSession.fromCode(code, upstream);
          await own.doHello();
          upstreamComparison = await own.doClaim((body as { name: string }).name);
          return { status: 200, body: { state: 'waiting', reveal: toBase64Url(relay.reveal) } };
        }
        return { status: 202, body: { state: 'waiting' } };
      },
    };
    const phone = PhoneSession.fromCode(start.code, mitm);
    await phone.doHello();
    const phoneComparison = await phone.doClaim('Pixel 8');
    const desk = await h.view(start.pid);
    // The server accepted the relay's claim (the code is all typed mode has) and shows mode `code`
    // so the screen can say that the comparison is the check; the codes differ, the person refuses.
    expect(desk).toMatchObject({ state: 'claimed', mode: 'code', name: 'Pixel 8', comparison_code: upstreamComparison });
    expect(phoneComparison).not.toBe(desk.comparison_code); // 1 in 10^6 to collide, fixed by the commitment
    expect((await h.confirm(start.pid, false)).status).toBe(200);
    expect(h.issued).toEqual([]);
  });

  it('cannot collect the result without the device key, and the result is delivered once', async () => {
    const h = await pairingHarness();
    const start = await h.start();
    const phone = PhoneSession.fromQr(start.url ?? '', h.transport('192.0.2.5'));
    let stolen: { status: number; body: unknown } | undefined;
    const paired = await pair(phone, 'Pixel 8', async (_code, pid) => {
      await h.confirm(pid, true);
      const relayKey = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
      const proof = await ecdsaSign(subtle, relayKey.privateKey, new TextEncoder().encode('anything'));
      stolen = await h.transport('192.0.2.66').post('/api/v1/pair/result', { pid, proof: toBase64Url(proof) });
    });
    expect(stolen).toMatchObject({ status: 403, body: { error: { pairing: 'PAIRING_PROOF' } } });
    expect(h.issued.map((d) => d.token)).toEqual([paired.token]);
    await expect(phone.doResult(0)).rejects.toMatchObject({ status: 403, body: { error: { pairing: 'PAIRING_USED' } } });
    const again = await h.transport('192.0.2.5').post('/api/v1/pair/claim', phone.lastClaim);
    expect(again).toMatchObject({ status: 403, body: { error: { pairing: 'PAIRING_USED' } } });
    expect(h.audit.filter((a) => a.session === start.pid && a.code === 'PAIRING_PROOF').map((a) => a.outcome)).toEqual(['result_refused']);
  });
});
