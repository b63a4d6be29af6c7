/**
 * How long a card's answer buttons stay disabled after cards moved under the person's finger: a
 * new card taking the place of the one just answered on the phone, or the desktop's list closing
 * up after a card left it. The probe of session 36 approved a delete that had slid under the
 * pointer (the desktop) and two deletes with one double tap 264 ms apart (the phone). Longer than
 * a double tap and a reaction to what moved; short enough not to slow a person reading a card.
 */
export const SETTLE_MS = 800;

/** Turns `settling` on for SETTLE_MS after each `start()`, restarting the wait on every call. */
export class Settle {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly set: (on: boolean) => void) {}

  start(): void {
    this.set(true);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.set(false);
    }, SETTLE_MS);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
