/**
 * A client's watch on the running gate while it waits for an answer that may legitimately take
 * minutes (a person deciding, a long test run): the gate's health is asked every few seconds,
 * and when it misses twice in a row, the wait is given up with a reason of its own. A frozen gate
 * (stopped, swapped out, wedged) had held every Claude Code call for 110 s and an MCP call for
 * ten minutes, with a progress message saying it was still running (fault probe, session 37).
 * A gate that only works slowly still answers its health at once: the health route does no work.
 */
export interface GateWatch {
  /** Aborted when the gate stopped answering. */
  readonly signal: AbortSignal;
  /** Why, once it did. */
  readonly reason: () => string | undefined;
  stop(): void;
}

/** First look after this long: a quick answer never pays for a health request. */
export const WATCH_EVERY_MS = 5_000;
/** Looks in a row that go unanswered before the gate is taken for gone. */
const MISSES = 2;

export function watchGate(answers: () => Promise<boolean>, everyMs = WATCH_EVERY_MS): GateWatch {
  const controller = new AbortController();
  let misses = 0;
  let why: string | undefined;
  let looking = false;
  const timer = setInterval(() => {
    if (looking || controller.signal.aborted) return;
    looking = true;
    // A look that throws (the CA unreadable, the gate's record gone) is a miss, not a crash.
    void Promise.resolve()
      .then(answers)
      .then(
        (ok) => ok,
        () => false,
      )
      .then((ok) => {
        looking = false;
        misses = ok ? 0 : misses + 1;
        if (misses < MISSES || controller.signal.aborted) return;
        why = `the gate stopped answering: ${String(MISSES)} looks at its health in a row, ${String(Math.round(everyMs / 1000))} s apart, went unanswered (it may be stopped or frozen; restart it with \`oracle serve\`, or \`oracle service status\` when it runs as a service)`;
        clearInterval(timer);
        controller.abort(new Error(why));
      });
  }, everyMs);
  timer.unref();
  return {
    signal: controller.signal,
    reason: () => why,
    stop: () => {
      clearInterval(timer);
    },
  };
}
