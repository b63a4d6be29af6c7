import { readNoFollow, sha256Bytes } from '../adapters/agent/files.js';

/**
 * The files an agent session made itself: nothing was at the path before one of its calls, and
 * the file still holds exactly what that session left in it. Deleting such a file takes nothing
 * the person had, so it is undoable housekeeping (T1, SPEC §1.6 "reversibility beats
 * permission") rather than a project delete a person confirms (T2): an agent that writes a
 * scratch script and removes it again asks nobody twice.
 *
 * Only what ORACLE saw is believed: a path is expected when an allowed call is about to create it
 * (or to rewrite a file this session made), and becomes made when the agent reports that call done
 * and the file is read then. Anything else (a person's edit, another session's write, a change no
 * call announced) leaves the recorded digest behind, and the delete goes back to a person.
 * In memory only: after a restart every delete in a project asks again, which fails closed.
 */
export class MadeFiles {
  /** session → real path → digest of what the file held when the session's call ended. */
  private readonly made = new Map<string, Map<string, string>>();
  /** call id → the session and the paths it was allowed to create or rewrite. */
  private readonly expected = new Map<string, { readonly session: string; readonly paths: readonly string[] }>();

  /** An allowed call will create `paths` (nothing there now) or rewrite files this session made. */
  expect(call: string, session: string | undefined, paths: readonly string[]): void {
    if (call === '' || session === undefined || paths.length === 0) return;
    const known = this.expected.get(call);
    this.expected.set(call, { session, paths: [...(known?.paths ?? []), ...paths].slice(0, MAX_PATHS_PER_CALL) });
    // Calls that never report back (a denied run, a crashed agent) are forgotten oldest first.
    while (this.expected.size > MAX_EXPECTED_CALLS) this.expected.delete(this.expected.keys().next().value ?? '');
  }

  /** The call did not run after all: nothing it would have created counts. */
  forgetCall(call: string): void {
    this.expected.delete(call);
  }

  /** Something else now stands at `path` (a move or a link landed there): no session made it. */
  forgetPath(path: string): void {
    for (const files of this.made.values()) files.delete(path);
  }

  /**
   * The agent reports `call` done: each expected path that now holds a regular file is made by its
   * session. Only the session that was told may confirm (call ids are the agent's, not ORACLE's).
   */
  confirm(call: string, session: string | undefined): void {
    const expected = this.expected.get(call);
    if (expected === undefined || expected.session !== session) return;
    this.expected.delete(call);
    for (const path of expected.paths) this.add(expected.session, path);
  }

  /** Records what `path` holds now as made by `session` (a write ORACLE's toolhost did for it). */
  add(session: string | undefined, path: string): void {
    if (session === undefined) return;
    const files = this.made.get(session) ?? new Map<string, string>();
    this.made.delete(session);
    // Only a regular file, and a small one: a folder's contents are not all this session's to
    // vouch for, and reading a large file whole on the gate's thread is not worth a prompt saved.
    const digest = digestOf(path);
    if (digest === undefined) files.delete(path);
    else files.set(path, digest);
    while (files.size > MAX_PATHS_PER_SESSION) files.delete(files.keys().next().value ?? '');
    // Most recently heard from last: the session quiet longest is forgotten first.
    this.made.set(session, files);
    while (this.made.size > MAX_SESSIONS) this.made.delete(this.made.keys().next().value ?? '');
  }

  /** Whether `session` made any file ORACLE still remembers. */
  madeAny(session: string): boolean {
    return (this.made.get(session)?.size ?? 0) > 0;
  }

  /** Whether `path` is, right now, a regular file `session` made and nobody changed since. */
  madeHere(session: string | undefined, path: string): boolean {
    const digest = session === undefined ? undefined : this.made.get(session)?.get(path);
    return digest !== undefined && digestOf(path) === digest;
  }
}

/** What a regular file of at most MAX_MADE_BYTES holds (no link followed), or undefined. */
function digestOf(path: string): string | undefined {
  try {
    return sha256Bytes(readNoFollow(path, MAX_MADE_BYTES));
  } catch {
    return undefined;
  }
}

/** A file an agent makes and removes again is a script or a note; a larger one's delete asks. */
const MAX_MADE_BYTES = 1024 * 1024;
const MAX_PATHS_PER_CALL = 64;
const MAX_EXPECTED_CALLS = 1_000;
const MAX_PATHS_PER_SESSION = 4_096;
const MAX_SESSIONS = 256;
