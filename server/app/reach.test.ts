import { describe, expect, it } from 'vitest';
import { Reach } from './reach.js';

describe('Reach', () => {
  it('counts phones for a T2 only, and a stream once however often it closes', () => {
    const reach = new Reach();
    reach.notifyVia(() => 3);
    const desktop = reach.opened('desktop');
    const phone = reach.opened('phone');
    expect(reach.asked('T2')).toEqual({ desktop_screens: 1, desktop_tray: 0, phone_screens: 1, phones_with_notifications: 3 });
    expect(reach.asked('T3')).toEqual({ desktop_screens: 1, desktop_tray: 0, phone_screens: 0, phones_with_notifications: 0 });
    desktop();
    desktop();
    phone();
    expect(reach.asked('T2')).toEqual({ desktop_screens: 0, desktop_tray: 0, phone_screens: 0, phones_with_notifications: 3 });
  });

  it('counts the tray while it keeps reading the queue, and not once it stopped', () => {
    let now = 1_000_000;
    const reach = new Reach(() => now);
    reach.trayRead();
    now += 4000;
    expect(reach.asked('T3').desktop_tray).toBe(1);
    now += 2000;
    expect(reach.asked('T3').desktop_tray).toBe(0);
  });
});
