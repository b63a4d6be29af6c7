import { describe, expect, it } from 'vitest';
import { Reach } from './reach.js';

describe('Reach', () => {
  it('counts phones for a T2 only, and a stream once however often it closes', () => {
    const reach = new Reach();
    reach.notifyVia(() => 3);
    const desktop = reach.opened('desktop');
    const phone = reach.opened('phone');
    expect(reach.asked('T2')).toEqual({ desktop_screens: 1, phone_screens: 1, phones_with_notifications: 3 });
    expect(reach.asked('T3')).toEqual({ desktop_screens: 1, phone_screens: 0, phones_with_notifications: 0 });
    desktop();
    desktop();
    phone();
    expect(reach.asked('T2')).toEqual({ desktop_screens: 0, phone_screens: 0, phones_with_notifications: 3 });
  });
});
