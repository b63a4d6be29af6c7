import type { TreeSearch } from './tree-search.js';
import { trimEnd } from '../../../shared/trim-end.js';

/**
 * What planning one simple command needs (SPEC §11): where it runs, the user's home for `~`, and
 * the sink that collects what the gate must judge. Pure.
 */
export type OracleToolName = 'exec.run' | 'fs.read' | 'fs.list' | 'fs.write' | 'fs.delete' | 'fs.mkdir' | 'fs.touch' | 'fs.copy' | 'fs.move' | 'fs.link' | 'fs.edit';
export interface OracleAction {
  readonly tool: OracleToolName;
  readonly args: Readonly<Record<string, unknown>>;
  /** The read is a search of the tree below its path (`grep -r`): what it reaches is weighed too. */
  readonly search?: TreeSearch;
}

export interface Sink {
  action(action: OracleAction): void;
  note(note: string): void;
  ask(reason: string): void;
  deny(reason: string): void;
}

export interface CommandContext {
  /** Every directory the command may run in (a `cd` that may have failed leaves several). */
  readonly cwds: readonly string[];
  readonly home: string | undefined;
  readonly sink: Sink;
  /** Plans a literal script (`bash -c STRING`); undefined when no parser was injected. */
  readonly script: ((source: string, cwds: readonly string[]) => void) | undefined;
  readonly depth: number;
  /** The paths a glob argument stands for (bash-actions.ts), for a command whose operands are all files alike. */
  readonly globs?: GlobArgs;
}

/**
 * Glob arguments reach a command as tokens; a command that reads every operand alike takes a
 * token's paths in its place. A token nobody took makes the command a person's call.
 */
export interface GlobArgs {
  take(arg: string): readonly string[] | undefined;
}

/** A glob's token (bash-actions.ts): NUL cannot be in an argument, so a token never meets a real word. */
export const globToken = (index: number): string => `\u0000glob${String(index)}\u0000`;
export const isGlobToken = (arg: string): boolean => arg.includes('\u0000');

/** `-`, /dev/stdin and /dev/fd/N are the standard input or a pipe (what `<(…)` passes), no file. */
export const isStandardInput = (path: string): boolean => path === '-' || /^\/dev\/(?:stdin|fd\/\d+)$/u.test(path);

export interface Assignment {
  readonly name: string;
  readonly value: string;
}

export function joinPath(cwd: string, path: string): string {
  // No lexical `..` collapsing here: the gate canonicalises (SPEC §5), and `link/..` is not `.`.
  if (path.startsWith('/')) return path;
  return `${trimEnd(cwd, '/')}/${path === '' ? '.' : path}`;
}

export function fsAction(tool: 'fs.read' | 'fs.list' | 'fs.write', path: string, ctx: CommandContext, search?: TreeSearch): void {
  for (const cwd of ctx.cwds) {
    const args = tool === 'fs.write' ? { path: joinPath(cwd, path), content: '' } : { path: joinPath(cwd, path) };
    ctx.sink.action(search === undefined ? { tool, args } : { tool, args, search });
  }
}

