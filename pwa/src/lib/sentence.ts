import type { ApprovalCard } from '../../../shared/approval-card.js';
import { unifiedDiff } from './diff.js';
import { markInvisible, visibleText } from './visible-text.js';

/**
 * The one plain sentence a card opens with (issue 15): who wants to do what, in words a person
 * reads at a glance ("claude-code wants to edit package.json (+3 −1)", "… run `npm install
 * left-pad`", "… delete src/old.ts", "… send a POST to api.example.com"). The exact action stays
 * below it; this never replaces it.
 */
export interface Sentence {
  readonly who: string;
  readonly verb: string;
  /** What the verb acts on: a path, a command line, a host. */
  readonly object: string;
  /** Shown as code (a command line). */
  readonly code: boolean;
  /** A short note after it: "(+3 −1)", "(new file)". */
  readonly note: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A path as short as is still unambiguous: relative to the project when it is inside it. */
export function shortPath(path: string, project: string | null): string {
  if (project !== null && project !== '' && path.startsWith(`${project.replace(/\/$/u, '')}/`)) return path.slice(project.replace(/\/$/u, '').length + 1);
  return path;
}

/** POSIX shell quoting for display: a word that needs none is shown bare, any other in single quotes. */
export function shellQuote(words: readonly string[]): string {
  return words.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/u.test(w) ? w : `'${w.replace(/'/gu, `'\\''`)}'`)).join(' ');
}

/** The command line of an exec card, as one shell-quoted line. */
export function commandLine(args: Readonly<Record<string, unknown>>): string {
  const rest = Array.isArray(args['args']) ? (args['args'] as unknown[]).map((w) => (typeof w === 'string' ? w : JSON.stringify(w))) : [];
  return markInvisible(shellQuote([str(args['program']), ...rest]));
}

export function sentenceOf(card: Pick<ApprovalCard, 'agent' | 'tool' | 'preview' | 'project'>): Sentence {
  const who = card.agent ?? 'an agent';
  const args = (typeof card.preview['args'] === 'object' && card.preview['args'] !== null ? card.preview['args'] : {}) as Record<string, unknown>;
  const path = shortPath(str(args['path']), card.project);
  const plain = (verb: string, object: string, note = ''): Sentence => ({ who, verb, object, code: false, note });
  switch (card.tool) {
    case 'fs.write':
    case 'fs.edit': {
      const before = card.preview['before'];
      if (before === null) return plain('create', path, '(new file)');
      if (typeof before !== 'string' || typeof args['content'] !== 'string') return plain('overwrite', path);
      const lines = unifiedDiff(before, args['content']);
      const added = lines.filter((l) => l.kind === 'add').length;
      const removed = lines.filter((l) => l.kind === 'del').length;
      return plain('edit', path, `(+${String(added)} −${String(removed)})`);
    }
    case 'fs.delete':
      return plain('delete', path);
    case 'fs.move':
    case 'fs.copy':
      return plain(card.tool === 'fs.move' ? 'move' : 'copy', `${shortPath(str(args['from']), card.project)} to ${shortPath(str(args['to']), card.project)}`);
    case 'fs.mkdir':
      return plain('create the folder', path);
    case 'exec.run':
    case 'exec.run_with_secrets':
      return { who, verb: card.tool === 'exec.run' ? 'run' : 'run, with secrets,', object: commandLine(args), code: true, note: '' };
    case 'net.fetch': {
      let host = str(args['url']);
      try {
        host = new URL(host).host;
      } catch {
        // shown as given
      }
      const secrets = typeof args['secrets'] === 'object' && args['secrets'] !== null ? Object.values(args['secrets'] as Record<string, { name?: unknown }>).map((s) => String(s.name)) : [];
      const carrying = secrets.length === 0 ? '' : ` with the secret${secrets.length > 1 ? 's' : ''} ${secrets.join(', ')}`;
      return plain(`send a ${str(args['method']) === '' ? 'GET' : str(args['method']).toUpperCase()}${carrying} to`, host);
    }
    case 'term.write':
      return { who, verb: `type into terminal ${str(args['session'])}, then Enter:`, object: visibleText(str(args['text'])), code: true, note: '' };
    case 'input.synth':
      return { who, verb: 'type on this computer:', object: visibleText(str(args['text'])), code: true, note: '' };
    case 'git.push':
      return plain('push', `${shortPath(str(args['repo']), card.project) || 'a repository'}${str(args['remote']) === '' ? '' : ` to ${str(args['remote'])}`}`);
    case 'git.commit':
      return plain('commit in', shortPath(str(args['repo']), card.project) || 'a repository');
    default:
      return plain('use', card.tool);
  }
}

/** Words for a card's risk: what the person is asked, not the tier's number. */
export function riskWords(tier: 'T2' | 'T3'): string {
  return tier === 'T3' ? 'Desktop only' : 'Needs you';
}

/** What a decided card's state means, in words ("approved · ran", "cancelled by HALT from Pixel 8"). */
export function stateWords(card: Pick<ApprovalCard, 'state' | 'message' | 'outcome'>, by: string): string {
  switch (card.state) {
    case 'pending':
      return 'waiting';
    case 'approved':
      return `approved by ${by} · not run yet`;
    case 'consumed':
      // How it ended, when ORACLE ran it and it has ended; otherwise only what is known.
      if (card.outcome === undefined) return `approved by ${by}`;
      return card.outcome.ok ? `approved by ${by} · ran` : `approved by ${by} · failed (${card.outcome.code ?? 'error'})`;
    case 'denied':
      return `denied by ${by}`;
    case 'expired':
      return 'expired unanswered · denied';
    case 'cancelled':
      return card.message?.startsWith('HALT') === true ? `cancelled by HALT from ${by}` : 'withdrawn by the agent';
  }
}
