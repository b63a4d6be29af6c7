import { describe, expect, it } from 'vitest';
import { askedText } from './asked.js';

describe('who could see a card', () => {
  it('says nobody can see it, and how to open the desktop screen, when nothing was counted as open', () => {
    const none = { desktop_screens: 0, phone_screens: 0, phones_with_notifications: 0 };
    expect(askedText('T2', none)).toBe('nobody can see it now: no ORACLE screen is open on the desktop or on a phone, and no paired phone has notifications on (`oracle desktop` on this computer opens the desktop screen)');
    expect(askedText('T3', none)).toContain('nobody can see it now: no desktop screen of ORACLE is open, and a T3 is approved only there');
    expect(askedText('T2', undefined)).toBeUndefined();
  });

  it('names only what was counted, in the singular and the plural', () => {
    expect(askedText('T2', { desktop_screens: 0, phone_screens: 0, phones_with_notifications: 2 })).toBe('it reaches 2 paired phones with notifications on');
    expect(askedText('T2', { desktop_screens: 2, phone_screens: 1, phones_with_notifications: 0 })).toBe('it reaches 2 desktop screens, ORACLE open on 1 phone');
    expect(askedText('T3', { desktop_screens: 1, phone_screens: 0, phones_with_notifications: 0 })).toBe('it shows on 1 desktop screen (a T3 is approved only there, with a typed phrase)');
  });

});
