/**
 * The live stream (SPEC §9): server-sent events read over fetch, because EventSource cannot send
 * the phone's bearer. Reconnects with `Last-Event-ID` so nothing between two connections is lost,
 * backing off up to 15 s, and drops a connection silent for 40 s; `onState` tells the screen whether it is live.
 * When the device's network comes back or the app returns to the screen it reconnects at once: the
 * old connection may be half-open (a phone that changed networks or slept) and the backoff long,
 * and a person waiting for a card should not wait up to 55 s for it.
 */
export interface LiveMessage {
  readonly id: number | undefined;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

export interface LiveOptions {
  readonly headers: Record<string, string>;
  readonly onMessage: (message: LiveMessage) => void;
  readonly onState: (live: boolean) => void;
  /** A refused credential (401/403) ends the stream for good. */
  readonly onRefused: () => void;
}

function parseBlock(block: string): LiveMessage | undefined {
  let id: number | undefined;
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /u, '');
    if (field === 'id' && /^\d+$/u.test(value)) id = Number(value);
    else if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(data.join('\n'));
    return typeof parsed === 'object' && parsed !== null ? { id, type, data: parsed as Record<string, unknown> } : undefined;
  } catch {
    return undefined;
  }
}

/** The server sends a heartbeat every 15 s: this long without a byte means the connection is dead. */
const IDLE_MS = 40_000;

export function openLive(options: LiveOptions): { close: () => void } {
  const controller = new AbortController();
  let lastId: number | undefined;
  let delay = 500;
  const stopped = (): boolean => controller.signal.aborted;
  /** The connection open now, and the backoff wait's early end. */
  let current: AbortController | undefined;
  let wake: (() => void) | undefined;
  let soon = false;
  const reconnect = (): void => {
    delay = 500;
    soon = true;
    current?.abort();
    wake?.();
  };
  const onVisible = (): void => {
    if (document.visibilityState === 'visible') reconnect();
  };
  /** One connection: ends on close, on a refused credential, or after IDLE_MS of silence (half-open after a network change). */
  const connect = async (): Promise<'again' | 'refused'> => {
    const connection = new AbortController();
    current = connection;
    const stop = (): void => {
      connection.abort();
    };
    controller.signal.addEventListener('abort', stop);
    let idle = setTimeout(stop, IDLE_MS);
    try {
      const headers: Record<string, string> = { ...options.headers, accept: 'text/event-stream' };
      if (lastId !== undefined) headers['last-event-id'] = String(lastId);
      const res = await fetch('/api/v1/events', { headers, credentials: 'same-origin', cache: 'no-store', signal: connection.signal });
      if (res.status === 401 || res.status === 403) return 'refused';
      if (!res.ok || res.body === null) return 'again';
      options.onState(true);
      delay = 500;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return 'again';
        clearTimeout(idle);
        idle = setTimeout(stop, IDLE_MS);
        buffer += value.replace(/\r\n?/gu, '\n');
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const message = parseBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (message === undefined) continue;
          if (message.id !== undefined) lastId = message.id;
          options.onMessage(message);
        }
      }
    } catch {
      return 'again';
    } finally {
      clearTimeout(idle);
      controller.signal.removeEventListener('abort', stop);
    }
  };
  const loop = async (): Promise<void> => {
    while (!stopped()) {
      const outcome = await connect();
      if (stopped()) return;
      options.onState(false);
      if (outcome === 'refused') {
        options.onRefused();
        return;
      }
      if (!soon) await new Promise<void>((resolve) => { wake = resolve; setTimeout(resolve, delay); });
      wake = undefined;
      soon = false;
      delay = Math.min(delay * 2, 15_000);
    }
  };
  globalThis.addEventListener('online', reconnect);
  document.addEventListener('visibilitychange', onVisible);
  void loop();
  return {
    close: () => {
      globalThis.removeEventListener('online', reconnect);
      document.removeEventListener('visibilitychange', onVisible);
      controller.abort();
    },
  };
}
