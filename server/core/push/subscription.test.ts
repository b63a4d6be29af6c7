import { describe, expect, it } from 'vitest';
import { checkSubscription } from './subscription.js';

const keys = { p256dh: `B${'x'.repeat(86)}`, auth: 'y'.repeat(22) };

describe('checkSubscription', () => {
  it('takes the browser vendors’ push services', () => {
    for (const endpoint of ['https://fcm.googleapis.com/fcm/send/abc', 'https://updates.push.services.mozilla.com/wpush/v2/abc', 'https://web.push.apple.com/QAbc', 'https://wns2-par02p.notify.windows.com/w/?token=abc']) {
      expect(checkSubscription({ endpoint, keys }, []), endpoint).toMatchObject({ ok: true, value: { endpoint } });
    }
  });

  it('refuses any other address unless the person named that origin, so a device cannot aim the gate elsewhere', () => {
    for (const endpoint of ['https://127.0.0.1:8443/push', 'https://fcm.googleapis.com.evil.example/x', 'http://fcm.googleapis.com/x', 'https://user:pw@fcm.googleapis.com/x', 'https://fcm.googleapis.com:444/x', 'https://169.254.169.254/latest', 'not a url']) {
      expect(checkSubscription({ endpoint, keys }, []).ok, endpoint).toBe(false);
    }
    expect(checkSubscription({ endpoint: 'https://127.0.0.1:8443/push/1', keys }, ['https://127.0.0.1:8443']).ok).toBe(true);
    expect(checkSubscription({ endpoint: 'https://127.0.0.1:8444/push/1', keys }, ['https://127.0.0.1:8443']).ok).toBe(false);
  });

  it('wants RFC 8291 key shapes', () => {
    const endpoint = 'https://fcm.googleapis.com/fcm/send/abc';
    expect(checkSubscription({ endpoint }, [])).toMatchObject({ ok: false });
    expect(checkSubscription({ endpoint, keys: { ...keys, p256dh: `A${'x'.repeat(86)}` } }, [])).toMatchObject({ ok: false, reason: expect.stringContaining('p256dh') as string });
    expect(checkSubscription({ endpoint, keys: { ...keys, auth: 'short' } }, [])).toMatchObject({ ok: false, reason: expect.stringContaining('auth') as string });
  });
});
