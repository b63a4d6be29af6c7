/** Deeper than any request ORACLE takes: hook payloads and actions nest a handful of levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * JSON text parsed only when it nests at most `maxDepth` levels, checked in one pass first: an
 * 8 MiB hook payload nested four million levels deep cost JSON.parse 5 s and a gigabyte, and the
 * gate's canonical form 8 s more, before anything refused it (red team, session 31).
 */
export function parseJsonWithin(text: string, maxDepth = MAX_JSON_DEPTH): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string } {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > maxDepth) return { ok: false, reason: `the JSON nests deeper than ${String(maxDepth)} levels` };
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : 'not JSON' };
  }
}
