/**
 * How long a card's answer buttons stay disabled after it came under the person's finger: a new
 * card taking the place of the one just answered on the phone, or a card of the desktop's list
 * that moved to where another one was. The probe of session 36 approved a delete that had slid
 * under the pointer (the desktop) and two deletes with one double tap 264 ms apart (the phone).
 * Longer than a double tap and a reaction to what moved; short enough not to slow a person
 * reading a card.
 */
export const SETTLE_MS = 800;

/**
 * Which cards are held, each for SETTLE_MS after it moved. Held card by card: an agent that keeps
 * withdrawing and asking again moves only its own cards, never holds the older ones a person is
 * answering (review, session 36). `changed` is called when a hold ends, to draw the buttons again.
 */
export class Settle {
  private readonly until = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly changed: () => void) {}

  start(key: string): void {
    this.until.set(key, Date.now() + SETTLE_MS);
    this.schedule();
  }

  holds(key: string): boolean {
    return (this.until.get(key) ?? 0) > Date.now();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const now = Date.now();
    for (const [key, at] of this.until) if (at <= now) this.until.delete(key);
    if (this.until.size === 0) return;
    const next = Math.min(...this.until.values());
    this.timer = setTimeout(() => {
      this.schedule();
      this.changed();
    }, next - now + 1);
  }
}

/**
 * Where a list's cards were, and when each place last changed hands: a card now in a place that
 * another card held within SETTLE_MS is what the pointer may be resting on (it moved up, or came
 * in where one left). Remembered across refreshes: a card withdrawn and another asked a moment
 * later arrive in two refreshes, the second "past the end" of the shorter list (second review,
 * session 36). A card added where no card was moved nothing.
 */
export class Places {
  private ids: readonly string[] = [];
  private readonly changed: number[] = [];

  /** The list as drawn now; the cards that took a place another card held lately. */
  next(now: readonly string[], at: number): string[] {
    const before = this.ids;
    for (let i = 0; i < Math.max(before.length, now.length); i++) if (i < before.length && before[i] !== now[i]) this.changed[i] = at;
    this.ids = now;
    return now.filter((id, i) => before[i] !== id && at - (this.changed[i] ?? -Infinity) < SETTLE_MS);
  }
}
