/**
 * The live stream (SPEC §9): server-sent events read over fetch, because EventSource cannot send
 * the phone's bearer. Reconnects with `Last-Event-ID` so nothing between two connections is lost,
 * backing off up to 15 s; `onState` tells the screen whether it is live.
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
  readonly onRefused: (status: number) => void;
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

export function openLive(options: LiveOptions): { close: () => void } {
  const controller = new AbortController();
  let lastId: number | undefined;
  let delay = 500;
  const stopped = (): boolean => controller.signal.aborted;
  const loop = async (): Promise<void> => {
    while (!stopped()) {
      try {
        const headers: Record<string, string> = { ...options.headers, accept: 'text/event-stream' };
        if (lastId !== undefined) headers['last-event-id'] = String(lastId);
        const res = await fetch('/api/v1/events', { headers, credentials: 'same-origin', cache: 'no-store', signal: controller.signal });
        if (res.status === 401 || res.status === 403) {
          options.onState(false);
          options.onRefused(res.status);
          return;
        }
        if (!res.ok || res.body === null) throw new Error(`events: ${String(res.status)}`);
        options.onState(true);
        delay = 500;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
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
        if (stopped()) return;
      }
      options.onState(false);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 15_000);
    }
  };
  void loop();
  return {
    close: () => {
      controller.abort();
    },
  };
}
