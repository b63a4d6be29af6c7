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
      /** Whether a file was there before; its bytes are kept beside this record. */
      readonly previous: { readonly existed: boolean; readonly mode: number };
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
      readonly kind: 'commit';
      readonly action_id: string;
      readonly created_at: string;
      readonly repo: string;
      /** HEAD before the commit; null when it was the first commit. */
      readonly before: string | null;
      readonly after: string;
    };
