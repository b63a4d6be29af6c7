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
  /** Set once its program ended (`by: 'halt'` when HALT killed it); the screen stays readable until a person closes it. */
  readonly exited: { readonly code: number; readonly signal: number | null; readonly at: string; readonly by?: 'halt' } | null;
}

/** How a terminal's end reads: HALT named when it was HALT, a signal when a signal ended it, else the exit code. */
export function endedText(exited: NonNullable<TerminalView['exited']>): string {
  if (exited.by === 'halt') return 'killed by HALT';
  return exited.signal !== null && exited.signal !== 0 ? `signal ${String(exited.signal)}` : `exit ${String(exited.code)}`;
}
