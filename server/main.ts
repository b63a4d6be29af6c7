import { createApp } from './http/app.js';
import { ensureTlsMaterial } from './adapters/certs.js';
import { listenHttps, type Listening } from './adapters/https-listener.js';
import { openGate, type GateState } from './gate.js';

export interface ServeOptions {
  readonly home?: string | undefined;
  readonly policy?: string | undefined;
  readonly port: number;
}

export interface Running {
  readonly gate: GateState;
  readonly listening: Listening;
  readonly url: string;
  readonly spkiSha256: string;
}

/**
 * The composition root (SPEC §2): build the gate from the policy, make sure the TLS material
 * exists, wire createApp with its dependencies and start HTTPS on loopback.
 */
export async function startServer(options: ServeOptions): Promise<Running> {
  const gate = openGate({ home: options.home, policy: options.policy });
  const tls = await ensureTlsMaterial(gate.home, { dns: ['localhost'], ips: ['127.0.0.1', '::1'] });
  const app = createApp({ gateStatus: () => ({ mode: gate.mode, policyDigest: gate.digest }), spkiSha256: tls.spkiSha256 });
  const listening = await listenHttps(app, { hostname: '127.0.0.1', port: options.port, key: tls.key, cert: tls.cert });
  return { gate, listening, url: `https://127.0.0.1:${listening.port}`, spkiSha256: tls.spkiSha256 };
}
