import { join } from 'node:path';
import { createApp } from './http/app.js';
import type { Caller } from './http/caller.js';
import { ensureTlsMaterial } from './adapters/certs.js';
import { CredentialStore } from './adapters/credentials-store.js';
import { listenHttps, type Listening } from './adapters/https-listener.js';
import { parseBearer } from './core/credentials/token.js';
import { openRuntime, type Runtime } from './runtime.js';

export interface ServeOptions {
  readonly home?: string | undefined;
  readonly policy?: string | undefined;
  readonly port: number;
}

export interface Running {
  readonly runtime: Runtime;
  readonly credentials: CredentialStore;
  readonly listening: Listening;
  readonly url: string;
  readonly spkiSha256: string;
  close(): Promise<void>;
}

/**
 * The composition root (SPEC §2): the runtime (policy, toolhost, audit, approvals), the
 * credentials, the TLS material, createApp with its dependencies, HTTPS on loopback.
 */
export async function startServer(options: ServeOptions): Promise<Running> {
  const runtime = await openRuntime({ home: options.home, policy: options.policy, actor: 'server' });
  const credentials = CredentialStore.open(join(runtime.gate.home, 'data'));
  const tls = await ensureTlsMaterial(runtime.gate.home, { dns: ['localhost'], ips: ['127.0.0.1', '::1'] });
  const app = createApp({
    gateStatus: () => ({ mode: runtime.mode(), policyDigest: runtime.gate.digest }),
    spkiSha256: tls.spkiSha256,
    callers: {
      async verify(header): Promise<Caller | undefined> {
        const token = parseBearer(header);
        if (token === undefined) return undefined;
        const record = await credentials.verify(token);
        if (record === undefined) return undefined;
        return record.kind === 'ag' ? { kind: 'agent', id: record.id, name: record.name } : { kind: 'device', id: record.id, name: record.name, profile: record.profile ?? 'phone' };
      },
    },
    actions: {
      submit: (action, waitMs, agent) => runtime.submit(action, waitMs, agent),
      continueAction: (approvalId, waitMs, agent) => runtime.continueAction(approvalId, waitMs, agent),
    },
  });
  const listening = await listenHttps(app, { hostname: '127.0.0.1', port: options.port, key: tls.key, cert: tls.cert });
  return {
    runtime,
    credentials,
    listening,
    url: `https://127.0.0.1:${String(listening.port)}`,
    spkiSha256: tls.spkiSha256,
    async close() {
      await listening.close();
      await runtime.close();
    },
  };
}
