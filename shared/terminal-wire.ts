/**
 * `oracle term attach` over a WebSocket (RFC 6455) to `/api/v1/terms/NAME/attach` (issue 16): JSON
 * text frames both ways. The person's keys go in as typed; what the terminal prints comes out.
 */
export type ToTerminal = { readonly t: 'in'; readonly d: string } | { readonly t: 'resize'; readonly cols: number; readonly rows: number };

export type FromTerminal =
  | { readonly t: 'out'; readonly d: string }
  | { readonly t: 'exit'; readonly code: number; readonly signal: number | null }
  | { readonly t: 'error'; readonly code: string; readonly message: string };

export const ATTACH_PATH = /^\/api\/v1\/terms\/([a-z0-9][a-z0-9_-]{0,31})\/attach$/u;

/** One frame from the client, checked field by field; undefined for anything else. */
export function parseToTerminal(text: string): ToTerminal | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const m = v as Record<string, unknown>;
  if (m['t'] === 'in' && typeof m['d'] === 'string') return { t: 'in', d: m['d'] };
  const ok = (n: unknown, max: number): n is number => Number.isInteger(n) && (n as number) >= 2 && (n as number) <= max;
  if (m['t'] === 'resize' && ok(m['cols'], 500) && ok(m['rows'], 200)) return { t: 'resize', cols: m['cols'], rows: m['rows'] };
  return undefined;
}
