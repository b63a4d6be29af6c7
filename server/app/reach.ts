import type { Asked } from '../../shared/asked.js';

/**
 * Who can see a card now (issue 13): the live streams open on the gate's events, by who opened
 * them, the desktop's tray while it reads the approval queue, and the paired phones that push
 * notifications go to. Counted, never assumed; the desk asks
 * when a caller stops waiting (approval-desk.ts), so an agent is told where its card can be seen.
 */
/** The tray reads the queue every 1.5 s (cli/tray.ts); one not heard from in this long is gone. */
const TRAY_GONE_MS = 5000;

export class Reach {
  private readonly open = { desktop: 0, phone: 0 };
  private notifiable: () => number = () => 0;
  private trayReadAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = Date.now) {}

  /** A live stream opened; the answer is called once, when it closes. */
  opened(kind: 'desktop' | 'phone'): () => void {
    this.open[kind] += 1;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.open[kind] -= 1;
    };
  }

  /** The desktop's tray (its local token, not a screen's session) read the approval queue. */
  trayRead(): void {
    this.trayReadAt = this.now();
  }

  /** How many paired phones push goes to (set once the push store is open; none before). */
  notifyVia(count: () => number): void {
    this.notifiable = count;
  }

  /** Who can see a card of this tier now: a T3 is the desktop's alone. */
  asked(tier: 'T2' | 'T3'): Asked {
    const desktop = { desktop_screens: this.open.desktop, desktop_tray: this.now() - this.trayReadAt < TRAY_GONE_MS ? 1 : 0 };
    if (tier === 'T3') return { ...desktop, phone_screens: 0, phones_with_notifications: 0 };
    return { ...desktop, phone_screens: this.open.phone, phones_with_notifications: this.notifiable() };
  }
}
