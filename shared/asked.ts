/**
 * Who could see a card when its caller stopped waiting for it (issue 13: a pending answer never
 * points at a device that cannot answer). Counted by the gate at that moment, never assumed: the
 * live streams open on its events, the tray that reads its queue, and the paired phones push
 * notifications go to. A T3 is approved at the desktop only, so for it phones count for nothing
 * and are not counted.
 */
export interface Asked {
  /** Desktop screens open on the gate's live events. */
  readonly desktop_screens: number;
  /** 1 while the desktop's tray (`oracle tray`) reads the approval queue, which it shows; else 0. */
  readonly desktop_tray: number;
  /** Paired phones with ORACLE open on the gate's live events (0 for a T3). */
  readonly phone_screens: number;
  /** Paired phones with notifications turned on (0 for a T3). */
  readonly phones_with_notifications: number;
}

/** Whether the gate counted nowhere a card of `tier` can be seen (for a T3 only the desktop counts). */
export function unseen(tier: string, asked: Asked): boolean {
  const desktop = asked.desktop_screens + asked.desktop_tray;
  return tier === 'T3' ? desktop === 0 : desktop + asked.phone_screens + asked.phones_with_notifications === 0;
}

const count = (n: number, one: string, many: string): string => `${String(n)} ${n === 1 ? one : many}`;

/**
 * What a caller tells its agent about who can answer a card of `tier` (T2, or the desktop-only
 * T3), from what the gate counted; undefined when nothing was counted.
 */
export function askedText(tier: string, asked: Asked | undefined): string | undefined {
  if (asked === undefined) return undefined;
  const open = `\`oracle desktop\` on this computer opens the desktop screen`;
  if (tier === 'T3') {
    if (unseen(tier, asked)) return `nobody can see it now: no desktop screen or tray of ORACLE is open, and a T3 is approved only on the desktop screen, with a typed phrase (${open})`;
    const desk = [...(asked.desktop_screens > 0 ? [count(asked.desktop_screens, 'desktop screen', 'desktop screens')] : []), ...(asked.desktop_tray > 0 ? ['the ORACLE tray'] : [])];
    return `it shows on ${desk.join(' and ')} (a T3 is approved only on the desktop screen, with a typed phrase)`;
  }
  if (unseen(tier, asked)) {
    return `nobody can see it now: no ORACLE screen or tray is open on the desktop or on a phone, and no paired phone has notifications on (${open})`;
  }
  const shown = [
    ...(asked.desktop_screens > 0 ? [count(asked.desktop_screens, 'desktop screen', 'desktop screens')] : []),
    ...(asked.desktop_tray > 0 ? ['the ORACLE tray on the desktop'] : []),
    ...(asked.phone_screens > 0 ? [`ORACLE open on ${count(asked.phone_screens, 'phone', 'phones')}`] : []),
    ...(asked.phones_with_notifications > 0 ? [`${count(asked.phones_with_notifications, 'paired phone', 'paired phones')} with notifications on`] : []),
  ];
  return `it reaches ${shown.join(', ')}`;
}

