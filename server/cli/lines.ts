import type { Readable } from 'node:stream';

export type Line = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'too-long' } | { readonly kind: 'not-utf8' };

/**
 * Splits a byte stream into lines without ever holding more than `max` bytes of one: a longer
 * line is skipped to its end and reported, so one hostile line cannot exhaust memory or stop the
 * lines after it from being answered. `\r\n` and a final line without `\n` are handled.
 */
export async function* readLines(input: Readable, max: number): AsyncGenerator<Line> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Buffer[] = [];
  let size = 0;
  const state = { overflow: false };
  const finish = (): Line => {
    const bytes = Buffer.concat(parts);
    parts = [];
    size = 0;
    if (state.overflow) {
      state.overflow = false;
      return { kind: 'too-long' };
    }
    const body = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
    try {
      return { kind: 'text', text: decoder.decode(body) };
    } catch {
      return { kind: 'not-utf8' };
    }
  };
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      take(chunk.subarray(start, nl));
      yield finish();
      start = nl + 1;
    }
    take(chunk.subarray(start));
  }
  if (size > 0 || state.overflow) yield finish();

  function take(piece: Buffer): void {
    if (state.overflow || piece.length === 0) return;
    if (size + piece.length > max) {
      state.overflow = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(piece);
    size += piece.length;
  }
}
