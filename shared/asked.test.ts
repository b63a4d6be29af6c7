import { describe, expect, it } from 'vitest';
import { askedText } from './asked.js';

const NONE = { desktop_screens: 0, desktop_tray: 0, phone_screens: 0, phones_with_notifications: 0 };

describe('who could see a card', () => {
  it('says nobody can see it, and how to open the desktop screen, when nothing was counted as open', () => {
    expect(askedText('T2', NONE)).toBe('nobody can see it now: no ORACLE screen or tray is open on the desktop or on a phone, and no paired phone has notifications on (`oracle desktop` on this computer opens the desktop screen)');
    expect(askedText('T3', NONE)).toContain('nobody can see it now: no desktop screen or tray of ORACLE is open, and a T3 is approved only on the desktop screen');
    expect(askedText('T2', undefined)).toBeUndefined();
  });

  it('names only what was counted, in the singular and the plural', () => {
    expect(askedText('T2', { ...NONE, phones_with_notifications: 2 })).toBe('it reaches 2 paired phones with notifications on');
    expect(askedText('T2', { ...NONE, desktop_screens: 2, phone_screens: 1 })).toBe('it reaches 2 desktop screens, ORACLE open on 1 phone');
    expect(askedText('T2', { ...NONE, desktop_tray: 1 })).toBe('it reaches the ORACLE tray on the desktop');
    expect(askedText('T3', { ...NONE, desktop_screens: 1 })).toBe('it shows on 1 desktop screen (a T3 is approved only on the desktop screen, with a typed phrase)');
    expect(askedText('T3', { ...NONE, desktop_screens: 1, desktop_tray: 1 })).toBe('it shows on 1 desktop screen and the ORACLE tray (a T3 is approved only on the desktop screen, with a typed phrase)');
  });
});
