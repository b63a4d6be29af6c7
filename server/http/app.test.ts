import { describe, expect, it } from 'vitest';
import { createApp } from './app.js';

describe('createApp', () => {
  const app = createApp({ gateStatus: () => ({ mode: 'read-only', policyDigest: 'sha256:ab' }), spkiSha256: 'PIN' });

  it('answers health without credentials, with the mode and the key pin', async () => {
    const res = await app.request('/api/v1/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, mode: 'read-only', spki_sha256: 'PIN', policy_digest: 'sha256:ab' });
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('refuses every other API route without a credential', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/actions'],
      ['POST', '/api/v1/actions'],
      ['POST', '/api/v1/halt'],
      ['GET', '/api/v1/devices'],
    ] as const) {
      const res = await app.request(path, { method, headers: { authorization: 'Bearer oracle_x_y' } });
      expect(res.status, path).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    }
  });
});
