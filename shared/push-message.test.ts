import { describe, expect, it } from 'vitest';
import { notificationText } from './push-message.js';

/** What a phone's notification says: words only, and nothing that is not so. */
describe('notification text', () => {
  it('says nothing waits once the queue is empty, without claiming every request was answered', () => {
    const { title, body } = notificationText({ v: 1, kind: 'settled', count: 0, tier: null, approval_id: null });
    expect(title).toBe('Nothing waiting');
    expect(body).toContain('expired unanswered (denied)');
    expect(body).not.toMatch(/every request was answered/iu);
  });

  it('counts what still waits, and warns of an expiry with its risk', () => {
    expect(notificationText({ v: 1, kind: 'settled', count: 2, tier: null, approval_id: null }).title).toBe('2 requests waiting');
    expect(notificationText({ v: 1, kind: 'expiring', count: 1, tier: 'T3', approval_id: null })).toEqual({ title: 'A request expires in a minute', body: '1 request waiting · T3 · desktop only. Unanswered means denied.' });
  });
});
