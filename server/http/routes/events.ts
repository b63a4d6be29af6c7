import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Caller } from '../caller.js';
import { fail } from '../errors.js';

export interface LiveEvent {
  readonly id: number;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  /** `data` as JSON, made once by the publisher for every stream. */
  readonly json: string;
}

/** The event source as the route sees it (the composition root adapts the hub). */
export interface EventSource {
  subscribe(profile: 'phone' | 'desktop', lastId: number | undefined, send: (event: LiveEvent) => void): { replay: readonly LiveEvent[]; close: () => void };
  /** Whether the caller's credential is still active: a revoked device's open stream ends. */
  active(callerId: string): boolean;
}

const HEARTBEAT_MS = 15_000;

/**
 * `GET /api/v1/events`: server-sent events per device or desktop, filtered by profile, with ids a
 * reconnect resumes from (`Last-Event-ID`), a heartbeat, and cleanup when the stream dies.
 */
export function eventRoutes(source: EventSource, heartbeatMs = HEARTBEAT_MS): Hono<{ Variables: { caller: Caller } }> {
  const app = new Hono<{ Variables: { caller: Caller } }>();
  app.get('/', (c) => {
    const caller = c.get('caller');
    if (caller.kind === 'agent') return fail(c, 'FORBIDDEN', 'agents do not receive the live stream');
    const profile = caller.kind === 'desktop' ? 'desktop' : caller.profile;
    const raw = c.req.header('last-event-id') ?? c.req.query('last_event_id');
    const lastId = raw === undefined || !/^\d+$/u.test(raw) ? undefined : Number(raw);
    return streamSSE(c, async (stream) => {
      const queue: LiveEvent[] = [];
      let wake: (() => void) | undefined;
      const sub = source.subscribe(profile, lastId, (event) => {
        queue.push(event);
        wake?.();
      });
      queue.unshift(...sub.replay);
      const state = { open: true };
      stream.onAbort(() => {
        state.open = false;
        sub.close(); // a dead stream is dropped at once
        wake?.();
      });
      try {
        while (state.open) {
          // Checked before every write: a revoke ends the stream at the next event or heartbeat.
          if (caller.kind === 'device' && !source.active(caller.id)) break;
          const event = queue.shift();
          if (event !== undefined) {
            await stream.writeSSE({ id: String(event.id), event: event.type, data: event.json });
            continue;
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, heartbeatMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
          // Woken by nothing (the heartbeat timer): say we are alive. Woken by an event: loop.
          if (queue.length === 0 && !stream.aborted) await stream.writeSSE({ event: 'heartbeat', data: '{}' });
        }
      } finally {
        sub.close();
      }
    });
  });
  return app;
}
