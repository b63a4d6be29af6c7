import { deny } from '../../../shared/decision.js';
import type { Evaluation } from '../decide/decide.js';
import { exclusionAdvice, searcherName, type SearchReach, type TreeSearch } from './tree-search.js';

/** Hidden entries named in a refusal; the rest are counted. */
const NAMED = 5;

/**
 * A search allowed by its path, weighed by what it reaches: any entry the policy hides from every
 * agent refuses it (PATH_DENY_ALWAYS, as `cat` of that file would be), naming what and why, and
 * saying how to leave those out in the searcher's own words, so the agent's next try can run.
 */
export function weighReach(evaluation: Evaluation, search: TreeSearch, reach: SearchReach): Evaluation {
  const [first] = reach.hidden;
  if (first === undefined) return evaluation;
  const start = evaluation.paths[0]?.real ?? '';
  const named = reach.hidden.slice(0, NAMED).map((e) => `\`${e.path}\`${e.kind === 'dir' ? ' (a folder)' : ''}: ${e.why}`);
  const more = reach.hidden.length > NAMED ? `; and ${String(reach.hidden.length - NAMED)} more` : '';
  const assumed = search.assumed === undefined ? '' : ` (${search.assumed})`;
  const how = search.by === 'Grep' ? `pass ${exclusionAdvice(search.by, reach.hidden)}, a narrower \`path\`, or a \`glob\` for the files you want` : `add ${search.assumed !== undefined && search.by === 'rg' ? '--no-config ' : ''}${exclusionAdvice(search.by, reach.hidden)}, or search a narrower folder`;
  const unsure = reach.unweighed === undefined ? '' : ` (it may skip some of them as ignored, but ${reach.unweighed})`;
  const reason = `${searcherName(search.by)} below \`${start}\` would read what no agent may read${assumed}: ${named.join('; ')}${more}${unsure}. To search the rest, ${how}`;
  return { ...evaluation, decision: deny('PATH_DENY_ALWAYS', first.rule, [reason]) };
}
