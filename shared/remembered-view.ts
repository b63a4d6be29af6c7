/** A remembered answer as the desktop lists it (issue 16): the server's view, the desktop's input. */
export interface RememberedView {
  readonly id: string;
  readonly tool: string;
  readonly preview: Readonly<Record<string, unknown>>;
  readonly project: string;
  readonly session: string | null;
  readonly agent: string | null;
  readonly created_by: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly uses: number;
}
