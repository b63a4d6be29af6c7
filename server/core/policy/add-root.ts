import { isMap, isSeq, parseDocument, stringify } from 'yaml';

/**
 * Adds a read-write root to `scopes.projects` of a policy's text, keeping everything else of the
 * file as written (comments included), for `oracle integrate claude-code --project DIR`. Pure: the
 * text comes in, the new text (or why not) goes out; the caller validates the result like any
 * policy before it is used.
 */
export function withProjectRoot(text: string, dir: string): { readonly text: string } | { readonly error: string } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return { error: 'the policy file is not valid YAML' };
  if (doc.contents === null) return { text: `${text}${stringify({ scopes: { projects: { roots: [{ path: dir, mode: 'rw' }] } } })}` };
  if (!isMap(doc.contents)) return { error: 'the policy file is not a mapping' };
  const root = doc.createNode({ path: dir, mode: 'rw' }, { flow: true });
  const roots = doc.getIn(['scopes', 'projects', 'roots']);
  if (roots === undefined) {
    if (doc.getIn(['scopes', 'projects']) !== undefined) return { error: '`scopes.projects` has no `roots` list to add to' };
    doc.setIn(['scopes', 'projects'], doc.createNode({ roots: [] }));
    doc.addIn(['scopes', 'projects', 'roots'], root);
  } else if (isSeq(roots)) {
    roots.add(root);
  } else {
    return { error: '`scopes.projects.roots` is not a list' };
  }
  return { text: doc.toString() };
}
