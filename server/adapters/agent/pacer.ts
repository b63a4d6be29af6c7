/** How long one stretch of a long task may hold the event loop before it lets others in (ms). */
const SLICE_MS = 4;

/**
 * Lets a long task on the gate's event loop (a search through thousands of files, a walk of a
 * large tree) give way to every other agent's answer: `breathe()` resolves at once while the
 * current stretch is under SLICE_MS, and after a turn of the event loop (setImmediate, so I/O
 * and timers run first) once it is over. Time, not a count of steps: a step may be a 10-byte file
 * or a 1 MiB one.
 */
export class Pacer {
  private since = performance.now();

  /** Whether the current stretch has run its time. */
  get due(): boolean {
    return performance.now() - this.since >= SLICE_MS;
  }

  async breathe(): Promise<void> {
    if (!this.due) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}
