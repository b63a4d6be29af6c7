/**
 * One page of a text file (SPEC §6 fs.read with `offset`/`limit`): whole lines from line `offset`
 * (1-based), at most `limit` of them and at most `maxBytes` of UTF-8, so a model asking for a page
 * of a 3 MB file gets a page, and learns where the next one starts. A line longer than the byte
 * budget on its own is cut at a character boundary (and the page says so).
 */
export interface TextPage {
  readonly text: string;
  /** The first and last line shown (1-based; `to` < `from` when the page is empty). */
  readonly from: number;
  readonly to: number;
  readonly total_lines: number;
  /** Where the next page starts, when the file goes on. */
  readonly next_offset?: number;
  /** The last line shown was cut at the byte budget. */
  readonly cut_line?: boolean;
}

export function textPage(text: string, request: { readonly offset: number; readonly limit: number; readonly maxBytes: number }): TextPage {
  const lines = text.match(/[^\n]*\n|[^\n]+$/gu) ?? [];
  const total = lines.length;
  const start = Math.min(Math.max(request.offset, 1), total + 1) - 1;
  let bytes = 0;
  let end = start;
  let cut: string | undefined;
  while (end < total && end - start < request.limit) {
    const line = lines[end] ?? '';
    const size = utf8Length(line);
    if (bytes + size > request.maxBytes) {
      // Nothing shown yet: this one line is larger than a page; show what fits of it.
      if (end === start) cut = truncateUtf8(line, request.maxBytes);
      break;
    }
    bytes += size;
    end += 1;
  }
  if (cut !== undefined) return { text: cut, from: start + 1, to: start + 1, total_lines: total, cut_line: true, ...(start + 1 < total ? { next_offset: start + 2 } : {}) };
  return { text: lines.slice(start, end).join(''), from: start + 1, to: end, total_lines: total, ...(end < total ? { next_offset: end + 1 } : {}) };
}

/** The longest prefix of `text` within `maxBytes` of UTF-8, never splitting a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let out = '';
  for (const ch of text) {
    const size = utf8Length(ch);
    if (bytes + size > maxBytes) break;
    bytes += size;
    out += ch;
  }
  return out;
}

/** Bytes of `text` in UTF-8 (a lone surrogate counts as the 3 bytes of U+FFFD it is written as). */
function utf8Length(text: string): number {
  let n = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}
