/** One of the gate's terminals as the screens and the CLI see it (issue 16). */
export interface TerminalView {
  readonly name: string;
  readonly program: string;
  readonly args: readonly string[];
  /** The folder it runs in: the only part of the user's files it sees. */
  readonly cwd: string;
  readonly pid: number;
  /** `bubblewrap`, or `none: <why>` where the host gives no sandbox (never assumed). */
  readonly sandbox: string;
  readonly opened_at: string;
  readonly opened_by: string;
  readonly cols: number;
  readonly rows: number;
  /** Set once its program ended; the screen stays readable until a person closes it. */
  readonly exited: { readonly code: number; readonly signal: number | null; readonly at: string } | null;
}
