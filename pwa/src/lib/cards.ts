import { cardSigningInput, type SignedCard } from '../../../shared/approval-card.js';
import { fixedBytes } from '../../../shared/pairing/bytes.js';
import { ecdsaVerify, type Key } from '../../../shared/pairing/protocol.js';
import { unifiedDiff, type DiffLine } from './diff.js';
import { markInvisible, visibleText } from './visible-text.js';
import { commandLine } from './sentence.js';

/** The approvals list as the server sends it. */
export interface ApprovalsReply {
  readonly approvals: readonly SignedCard[];
  /** How many are pending in all; `approvals` holds the oldest of them (a page). */
  readonly pending_total?: number;
  readonly recent: readonly SignedCard[];
  readonly mode: string;
  /** The HALT in force, when one is: who (`desktop`, `cli`, `device:ID`), when and why. */
  readonly halt?: { readonly reason: string; readonly at: string; readonly by: string };
}

/** A HALT in words: "HALT by Pixel 8 at 19:34: HALT from Pixel 8". */
export function haltWords(halt: NonNullable<ApprovalsReply['halt']>, devices: readonly { readonly id: string; readonly name: string }[]): string {
  const who = deciderName(halt.by.startsWith('device:') ? halt.by.slice('device:'.length) : halt.by, devices);
  return `halted by ${who} at ${when(halt.at)}${halt.reason === '' ? '' : `: ${halt.reason}`}`;
}

/** SPEC §9a: a card is offered for approval only when the pinned server key signed exactly it. */
export async function verifyCard(key: Key, card: SignedCard): Promise<boolean> {
  const sig = fixedBytes(card.card_sig, 64);
  if (sig === undefined) return false;
  try {
    return await ecdsaVerify(globalThis.crypto.subtle, key, sig, cardSigningInput(card));
  } catch {
    return false;
  }
}

/** A labelled piece of what will run: every value is shown as text, exactly, never as markup. */
export interface Detail {
  readonly label: string;
  readonly value: string;
  /** Monospace block (argv, content, payload). */
  readonly block: boolean;
  /** A write's change against the current file, line by line. */
  readonly diff?: readonly DiffLine[];
  /** Not what the decision turns on (the pinned program path, a timeout): shown under "More details". */
  readonly minor?: boolean;
}

/** Arguments that are true and exact but not what a person decides on. */
const MINOR = new Set(['program_path', 'timeout', 'timeout_s', 'timeout_ms', 'max_bytes']);

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/**
 * The exact action, per tool family: the program and each argv word on its own line (quoted, so
 * spaces and empty words show), the path, the content to be written, the request to be sent.
 */
export function detailsOf(preview: Readonly<Record<string, unknown>>): Detail[] {
  const tool = typeof preview['tool'] === 'string' ? preview['tool'] : '';
  const args = (typeof preview['args'] === 'object' && preview['args'] !== null ? preview['args'] : {}) as Record<string, unknown>;
  const out: Detail[] = [];
  const used = new Set<string>();
  const take = (key: string, label: string, block = false): void => {
    if (!(key in args) || used.has(key)) return;
    out.push({ label, value: text(args[key]), block });
    used.add(key);
  };
  if (tool.startsWith('exec.')) {
    // One shell-quoted line, wrapped, never scrolled: its end is as visible as its start.
    out.push({ label: 'command', value: commandLine(args), block: true });
    used.add('program').add('args');
    take('cwd', 'working directory');
  } else if (tool === 'term.write') {
    take('session', 'terminal');
    // Exactly what is typed: spaces at either end, tabs and anything invisible shown as marks.
    out.push({ label: 'line typed, then Enter', value: visibleText(typeof args['text'] === 'string' ? args['text'] : ''), block: true });
    used.add('text');
    // What it would be typed into: a shell's prompt, or a program asking something else.
    if (typeof preview['screen'] === 'string') out.push({ label: 'the terminal shows now', value: preview['screen'], block: true });
  } else if (tool === 'input.synth') {
    // Keystrokes into this computer: a newline is an Enter, a tab or ESC a key of its own; each is shown.
    out.push({ label: 'keys typed into this computer (␊ is Enter)', value: visibleText(typeof args['text'] === 'string' ? args['text'] : ''), block: true });
    used.add('text');
  } else if (tool === 'net.fetch') {
    take('method', 'method');
    take('url', 'url', true);
    const headers = args['headers'];
    if (typeof headers === 'object' && headers !== null && Object.keys(headers).length === 0) used.add('headers');
    take('headers', 'headers', true);
    // A named secret's header as it leaves: the gate puts the stored value where the name is.
    const secrets = args['secrets'];
    if (typeof secrets === 'object' && secrets !== null) {
      const lines = Object.entries(secrets as Record<string, { name?: unknown; prefix?: unknown }>).map(([header, s]) => `${header}: ${typeof s.prefix === 'string' ? s.prefix : ''}‹the secret ${String(s.name)}›`);
      out.push({ label: 'secrets the gate adds', value: lines.join('\n'), block: true });
      used.add('secrets');
    }
    take('body', 'body sent', true);
  } else {
    take('path', 'path', true);
    take('repo', 'repository', true);
    if (tool === 'fs.write' && typeof args['content'] === 'string') {
      out.push(writeDetail(preview, args['content']));
      used.add('content');
    }
    // What a delete would remove, as the gate saw it when it made the card (and checks again).
    const target = preview['target'];
    if (tool === 'fs.delete' && typeof target === 'object' && target !== null) out.push({ label: 'what is there now', value: subjectWords(target as Record<string, unknown>), block: false });
    take('content', 'new content (whole file)', true);
    take('message', 'message', true);
  }
  for (const [key, value] of Object.entries(args)) if (!used.has(key)) out.push({ label: key.replace(/_/gu, ' '), value: text(value), block: typeof value !== 'string' || value.length > 40 || value.includes('\n'), ...(MINOR.has(key) ? { minor: true } : {}) });
  // Whatever the agent chose is shown with nothing invisible in it: a path, a header, a diff line.
  return out.map((d) => ({ ...d, value: markInvisible(d.value), ...(d.diff === undefined ? {} : { diff: d.diff.map((l) => ({ ...l, text: markInvisible(l.text) })) }) }));
}

/** Splits a value so redaction markers can be shown marked: `[REDACTED:kind]` pieces flagged. */
export function redactionParts(value: string): { readonly text: string; readonly redacted: boolean }[] {
  return value.split(/(\[REDACTED:[a-z0-9-]+\])/u).filter((p) => p !== '').map((p) => ({ text: p, redacted: /^\[REDACTED:[a-z0-9-]+\]$/u.test(p) }));
}

/** The pin as the desktop and `oracle serve` print it (standard base64), so a person can compare them. */
export function displayPin(base64url: string): string {
  const b64 = base64url.replace(/-/gu, '+').replace(/_/gu, '/');
  return b64 + '='.repeat((4 - (b64.length % 4)) % 4);
}

/** Who decided, by device name when the device is known. */
export function deciderName(device: string | null, devices: readonly { readonly id: string; readonly name: string }[]): string {
  if (device === null) return 'nobody';
  if (device === 'desktop') return 'the desktop';
  if (device === 'cli') return 'the command line';
  return devices.find((d) => d.id === device)?.name ?? device;
}

/** What the session read, each source once, in the order first read. */
export function readSources(provenance: readonly string[]): string[] {
  return [...new Set(provenance)];
}

/** A timestamp as this device's local time, short. */
export function when(iso: string | null): string {
  if (iso === null) return '';
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? iso : t.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

/**
 * A write against what it replaces (the server reads the current file for the card): the diff,
 * the whole content of a new file, or the whole content with the reason no diff could be made.
 */
function writeDetail(preview: Readonly<Record<string, unknown>>, content: string): Detail {
  const before = preview['before'];
  if (typeof before === 'string') return { label: 'change to the file', value: content, block: true, diff: unifiedDiff(before, content) };
  if (before === null) return { label: 'new file, whole content', value: content, block: true };
  const why = typeof preview['before_unavailable'] === 'string' ? preview['before_unavailable'] : 'the current file was not read';
  return { label: `new content (whole file; no diff: ${why})`, value: content, block: true };
}

/** A delete's target in words: "a file of 1,204 bytes", "a folder with 12 entries, and everything in them". */
export function subjectWords(target: Readonly<Record<string, unknown>>): string {
  const n = (v: unknown): string => (typeof v === 'number' ? v.toLocaleString('en-US') : '?');
  switch (target['kind']) {
    case 'file':
      return `a file of ${n(target['bytes'])} bytes`;
    case 'dir':
      return target['over'] === true ? `a folder with more than ${n(target['entries'])} entries below it` : `a folder with ${n(target['entries'])} entries below it`;
    case 'missing':
      return 'nothing (the path does not exist now)';
    default:
      return 'not a file or a folder';
  }
}
