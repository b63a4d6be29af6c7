/**
 * Runs async read-modify-write steps one at a time, so two concurrent `set` calls in one process
 * cannot lose an update. Across processes the home has one owner: the running gate.
 */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(step: () => Promise<T>): Promise<T> {
    const next = this.tail.then(step);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

const QUEUES = new Map<string, Serial>();

/** One queue per file, shared by every store object opened on it in this process. */
export function serialFor(path: string): Serial {
  let queue = QUEUES.get(path);
  if (queue === undefined) {
    queue = new Serial();
    QUEUES.set(path, queue);
  }
  return queue;
}
