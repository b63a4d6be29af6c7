import type { LineCounter} from 'yaml';
import { isMap, isPair, isScalar, isSeq, type Document, type Node } from 'yaml';

export interface Location {
  readonly line: number;
  readonly column: number;
}

/**
 * Finds where a validation issue sits in the YAML source: the deepest node along `path` that
 * exists (an unknown key points at the key itself, a missing one at its parent).
 */
export function locate(doc: Document, counter: LineCounter, path: readonly PropertyKey[]): Location {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (const key of path) {
    const next = child(node, key);
    if (next === undefined) break;
    node = next.value;
    offset = next.at ?? offset;
  }
  const pos = counter.linePos(offset);
  return { line: pos.line, column: pos.col };
}

function rangeStart(node: unknown): number | undefined {
  return (node as Node | null)?.range?.[0];
}

function child(node: unknown, key: PropertyKey): { value: unknown; at: number | undefined } | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const k = isScalar(pair.key) ? pair.key.value : pair.key;
      if (String(k) === String(key)) {
        // Point at the value when it has a position, else at the key (e.g. `key:` with no value).
        return { value: pair.value, at: rangeStart(pair.value) ?? rangeStart(pair.key) };
      }
    }
    return undefined;
  }
  if (isSeq(node) && typeof key === 'number') {
    const item = node.items[key];
    return item === undefined ? undefined : { value: item, at: rangeStart(item) };
  }
  return undefined;
}

/** For an unknown key: the position of the key, not of its map. */
export function locateKey(doc: Document, counter: LineCounter, path: readonly PropertyKey[], key: string): Location {
  let node: unknown = doc.contents;
  for (const segment of path) {
    const next = child(node, segment);
    if (next === undefined) return locate(doc, counter, path);
    node = next.value;
  }
  if (isMap(node)) {
    for (const pair of node.items) {
      const k = isScalar(pair.key) ? pair.key.value : pair.key;
      if (String(k) === key) {
        const pos = counter.linePos(rangeStart(pair.key) ?? 0);
        return { line: pos.line, column: pos.col };
      }
    }
  }
  return locate(doc, counter, path);
}
