import { kindRank, marker, type Redaction } from './kinds.js';

/**
 * Detectors overlap (a JWT inside a connection string, a known secret that is also a GitHub
 * token). Overlapping spans merge into their union, so nothing either detector found stays
 * visible, and the merged span keeps the most specific kind. Spans that only touch stay apart.
 */
export function mergeSpans(found: readonly Redaction[]): Redaction[] {
  const sorted = [...found].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Redaction[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && span.start < last.end) {
      const kind = kindRank(span.kind) < kindRank(last.kind) ? span.kind : last.kind;
      merged[merged.length - 1] = { kind, start: last.start, end: Math.max(last.end, span.end) };
    } else {
      merged.push(span);
    }
  }
  return merged;
}

/**
 * The line breaks a redacted span held, kept after its marker: a multi-line secret (a private key
 * block) leaves as many lines as it had, so the line numbers of everything after it (fs.read's
 * pages, fs.search's `path:line:`) are still the file's.
 */
function lineBreaks(secret: string): string {
  return secret.match(/\r\n|\n|\r/gu)?.join('') ?? '';
}

interface Segment {
  readonly outStart: number;
  readonly outEnd: number;
  readonly origStart: number;
  readonly origEnd: number;
  readonly isMarker: boolean;
}

/** The text with each (sorted, disjoint) span replaced by its marker, and a map back. */
export class Redacted {
  readonly text: string;
  private readonly segments: readonly Segment[];

  constructor(original: string, spans: readonly Redaction[]) {
    const segments: Segment[] = [];
    let text = '';
    let at = 0;
    const push = (piece: string, origEnd: number, isMarker: boolean) => {
      segments.push({ outStart: text.length, outEnd: text.length + piece.length, origStart: at, origEnd, isMarker });
      text += piece;
      at = origEnd;
    };
    for (const span of spans) {
      if (span.start > at) push(original.slice(at, span.start), span.start, false);
      push(marker(span.kind) + lineBreaks(original.slice(span.start, span.end)), span.end, true);
    }
    if (original.length > at) push(original.slice(at), original.length, false);
    this.text = text;
    this.segments = segments;
  }

  private segmentAt(outPos: number): Segment | undefined {
    return this.segments.find((s) => s.outStart <= outPos && outPos < s.outEnd);
  }

  /**
   * Maps a span found in the redacted text back to the original. A span that reaches into a
   * marker takes in the whole span that marker stands for.
   */
  toOriginal(found: Redaction): Redaction {
    const first = this.segmentAt(found.start);
    const last = this.segmentAt(found.end - 1);
    if (first === undefined || last === undefined) return found;
    const start = first.isMarker ? first.origStart : first.origStart + (found.start - first.outStart);
    const end = last.isMarker ? last.origEnd : last.origStart + (found.end - last.outStart);
    return { kind: found.kind, start, end };
  }
}
