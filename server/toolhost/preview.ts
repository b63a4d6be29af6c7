import { FileOpError, probe, readNoFollow, sha256Bytes, subjectOf, type Subject } from '../adapters/agent/files.js';
import type { RawText } from '../core/tools/edit-as-write.js';

/**
 * What a write would replace, for the person's approval card (SPEC §10: "the exact … diff"): the
 * current text of the resolved path, read the way the executor would (no final link followed, no
 * FIFO opened, bounded). Shown, never handed to an agent; the desk redacts it with the rest.
 */
export type CurrentText = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'absent' } | { readonly kind: 'unavailable'; readonly reason: string };

/** Cards travel to phones over the live stream: a larger file is described, not shown. */
export const PREVIEW_MAX_BYTES = 64 * 1024;

/** A regular file's bytes, read the way the executor would; or why there are none to show. */
type Bytes = { readonly kind: 'bytes'; readonly bytes: Buffer } | { readonly kind: 'absent' } | { readonly kind: 'unavailable'; readonly reason: string } | { readonly kind: 'too-large' } | { readonly kind: 'unreadable' };

function fileBytes(path: string, max: number): Bytes {
  const what = probe(path);
  if (what === 'missing') return { kind: 'absent' };
  if (what !== 'file') return { kind: 'unavailable', reason: `the path is a ${what === 'dir' ? 'directory' : what === 'link' ? 'link' : 'special file'}` };
  try {
    // The very file at this resolved path: a folder above it swapped for a link reads nothing.
    return { kind: 'bytes', bytes: readNoFollow(path, max, 'exact') };
  } catch (e) {
    return e instanceof FileOpError && e.code === 'FS_TOO_LARGE' ? { kind: 'too-large' } : { kind: 'unreadable' };
  }
}

export function currentText(path: string, max = PREVIEW_MAX_BYTES): CurrentText {
  const read = fileBytes(path, max);
  if (read.kind === 'absent') return read;
  if (read.kind === 'too-large') return { kind: 'unavailable', reason: `the current file is over ${String(max / 1024)} KiB` };
  if (read.kind === 'unreadable') return { kind: 'unavailable', reason: 'the current file cannot be read' };
  if (read.kind === 'unavailable') return read;
  try {
    return { kind: 'text', text: new TextDecoder('utf-8', { fatal: true }).decode(read.bytes) };
  } catch {
    return { kind: 'unavailable', reason: 'the current file is not UTF-8 text' };
  }
}

/**
 * A file as an edit (fs.replace) reads it: the exact text, a byte-order mark kept (so writing the
 * edited text back changes nothing else), and the digest of its bytes for the write's
 * `expect_before`. Read the way the executor writes (no final link followed, bounded).
 */
export function rawText(path: string, max: number): RawText {
  const read = fileBytes(path, max);
  if (read.kind === 'absent') return read;
  if (read.kind === 'too-large') return { kind: 'unavailable', reason: `the file is over ${String(max / (1024 * 1024))} MiB; write it whole instead` };
  if (read.kind === 'unreadable') return { kind: 'unavailable', reason: 'the file cannot be read' };
  if (read.kind === 'unavailable') return read;
  try {
    return { kind: 'text', text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(read.bytes), digest: sha256Bytes(read.bytes) };
  } catch {
    return { kind: 'unavailable', reason: 'the file is not UTF-8 text' };
  }
}

/**
 * What a delete would remove, for its card and for the check when the grant is spent (the desk
 * compares fingerprints): read the way the executor sees the path, no link followed.
 */
export function currentSubject(path: string): Subject {
  return subjectOf(path);
}
