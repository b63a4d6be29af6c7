/**
 * What an undo needs to know (SPEC §7 "Undo for T1 actions"), stored under `<home>/data/undo`.
 * Pure types; the store itself is an adapter.
 */
export type UndoRecord =
  | {
      readonly id: string;
      readonly kind: 'write';
      readonly action_id: string;
      readonly created_at: string;
      readonly path: string;
      /**
       * Whether a file was there before; its bytes are kept beside this record, with their digest
       * (records written before the digest was kept have none).
       */
      readonly previous: { readonly existed: boolean; readonly mode: number; readonly digest?: string };
      /** The file must still hold exactly this, or the world moved on and undo is refused. */
      readonly after_digest: string;
    }
  | {
      readonly id: string;
      readonly kind: 'delete';
      readonly action_id: string;
      readonly created_at: string;
      readonly path: string;
      readonly trash: string;
      readonly digest: string;
    }
  | {
      readonly id: string;
      readonly kind: 'change';
      readonly action_id: string;
      readonly created_at: string;
      /** What the agent ran (`mkdir -p src/utils`), for the list. */
      readonly summary: string;
      /** The agent's id for the call (Claude Code's tool_use_id), whose PostToolUse confirms it. */
      readonly call: string;
      /** Every path the call changes, in the order it was judged; restored in reverse. */
      readonly entries: readonly ChangeEntry[];
      /** What each path held once the call ran, set when the agent reports it finished. */
      readonly after?: readonly string[];
    }
  | {
      readonly id: string;
      readonly kind: 'commit';
      readonly action_id: string;
      readonly created_at: string;
      readonly repo: string;
      /** HEAD before the commit; null when it was the first commit. */
      readonly before: string | null;
      readonly after: string;
    };

/** One path a change touches, as it was before: what undo needs to put it back. */
export interface ChangeEntry {
  readonly path: string;
  readonly before: 'missing' | 'file' | 'dir' | 'link';
  /** A copy kept in the undo store (`<id>.<n>.keep`), for a file or a tree the change removes or replaces. */
  readonly kept?: string;
  readonly link?: string;
}

/** What an undo record is about, as a person reads it in a list. */
export function undoTarget(record: UndoRecord): string {
  switch (record.kind) {
    case 'commit':
      return record.repo;
    case 'change':
      return `${record.summary}${record.after === undefined ? '  (not reported done)' : ''}`;
    case 'write':
    case 'delete':
      return record.path;
  }
}
