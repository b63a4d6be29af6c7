import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { HomeFileError } from './home-file-error.js';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/**
 * The per-install TLS material under `<home>/certs` (SPEC §9): a local CA, and a server
 * certificate whose ECDSA P-256 key is made once and never changes, so the SPKI pin a phone
 * stores never moves. The certificate is re-issued with the same key when the names it must
 * cover change or it nears expiry.
 */
export interface TlsMaterial {
  readonly key: string;
  readonly cert: string;
  readonly caCert: string;
  /** SHA-256 of the server key's SubjectPublicKeyInfo, base64 (Chromium's pin format). */
  readonly spkiSha256: string;
  /** The same digest as lower-case hex, for display and the pairing URL. */
  readonly spkiSha256Hex: string;
  readonly caFingerprint: string;
  readonly reissued: boolean;
}

const SERVER_DAYS = 397; // within what Apple accepts for a TLS server certificate
const CA_DAYS = 3650;
const RENEW_BEFORE_MS = 30 * 86_400_000;

export async function ensureTlsMaterial(home: string, names: { readonly dns: readonly string[]; readonly ips: readonly string[] }): Promise<TlsMaterial> {
  const dir = join(home, 'certs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ca = await ensureCa(dir);
  const serverKey = ensureKey(join(dir, 'server.key'));
  const certPath = join(dir, 'server.crt');
  // The names a certificate was issued for are kept beside it: X.509 prints IPv6 differently.
  const namesPath = join(dir, 'server.names.json');
  const wanted = JSON.stringify([...names.dns.map((d) => `DNS:${d}`), ...names.ips.map((ip) => `IP:${ip}`)].sort());
  const issuedFor = existsSync(namesPath) ? readFileSync(namesPath, 'utf8') : '';
  let reissued = false;
  if (!existsSync(certPath) || issuedFor !== wanted || needsReissue(readFileSync(certPath, 'utf8'), serverKey)) {
    const now = new Date();
    const pems = await generate([{ name: 'commonName', value: 'ORACLE gate' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      keyPair: { privateKey: serverKey, publicKey: createPublicKey(serverKey).export({ type: 'spki', format: 'pem' }).toString() },
      ca: { key: ca.key, cert: ca.cert },
      notBeforeDate: new Date(now.getTime() - 60_000),
      notAfterDate: new Date(now.getTime() + SERVER_DAYS * 86_400_000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [...names.dns.map((value) => ({ type: 2 as const, value })), ...names.ips.map((ip) => ({ type: 7 as const, ip }))] },
      ],
    });
    writeAtomic(certPath, pems.cert, 0o644);
    writeAtomic(namesPath, wanted, 0o644);
    reissued = true;
  }
  const spki = createPublicKey(serverKey).export({ type: 'spki', format: 'der' });
  const digest = createHash('sha256').update(spki).digest();
  return {
    key: serverKey,
    cert: readFileSync(certPath, 'utf8'),
    caCert: ca.cert,
    spkiSha256: digest.toString('base64'),
    spkiSha256Hex: digest.toString('hex'),
    caFingerprint: new X509Certificate(ca.cert).fingerprint256,
    reissued,
  };
}

async function ensureCa(dir: string): Promise<{ key: string; cert: string }> {
  const keyPath = join(dir, 'ca.key');
  const certPath = join(dir, 'ca.crt');
  const key = ensureKey(keyPath);
  if (!existsSync(certPath)) {
    const now = new Date();
    const pems = await generate([{ name: 'commonName', value: 'ORACLE local CA' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      keyPair: { privateKey: key, publicKey: createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString() },
      notBeforeDate: new Date(now.getTime() - 60_000),
      notAfterDate: new Date(now.getTime() + CA_DAYS * 86_400_000),
      extensions: [
        { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      ],
    });
    writeAtomic(certPath, pems.cert, 0o644);
  }
  const cert = readFileSync(certPath, 'utf8');
  try {
    if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))) throw new Error('another key');
  } catch (e) {
    throw new HomeFileError(certPath, `not the certificate of ca.key: ${e instanceof Error ? e.message : 'unreadable'}`, 'restore it from a backup; or move the certs folder away for a new CA, which every phone must trust and pair with again');
  }
  return { key, cert };
}

/** A P-256 private key in PKCS#8 PEM, made once with mode 0600. */
function ensureKey(path: string): string {
  if (existsSync(path)) {
    const pem = readFileSync(path, 'utf8');
    try {
      createPrivateKey(pem); // refuse to run on a corrupt key rather than silently replacing the pin
    } catch {
      throw new HomeFileError(path, 'not a PEM private key', 'restore it from a backup; or move the certs folder away for new keys, after which the pin changes and every phone pairs again');
    }
    return pem;
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeAtomic(path, pem, 0o600);
  return pem;
}

function needsReissue(certPem: string, serverKey: string): boolean {
  try {
    const cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(serverKey))) return true;
    return Date.parse(cert.validTo) - Date.now() < RENEW_BEFORE_MS;
  } catch {
    return true;
  }
}

function writeAtomic(path: string, text: string, mode: number): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}
