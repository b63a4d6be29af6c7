import type { Context, EntityJson, EntityUid, TypeAndId } from '@cedar-policy/cedar-wasm/nodejs';
import { actionRequestSchema } from '../../shared/action.js';
import type { DecideContext } from '../../server/core/decide/context.js';
import { lookupTool } from '../../server/core/tools/registry.js';
import { argvContext, argvPaths } from './argv.js';
import { canonicalPath, type CanonicalPath } from './canonical.js';
import { NS } from './text.js';
import { EXEC_ARG } from './tools.js';
import { fetchContext } from './url.js';

export interface CedarRequest {
  readonly principal: EntityUid;
  readonly action: TypeAndId;
  readonly resource: EntityUid;
  readonly context: Context;
}

/**
 * One ORACLE action as the Cedar requests that together decide it: the tool's own request
 * (resource: its path, program or host), one more per further path argument, and one per path an
 * exec argument names; all must be permitted. Before Cedar, and shared with decide(): schema
 * validation, path canonicalisation, URL parsing, argv tokenising, the `.git` check. A refusal
 * there becomes `context.refused`, which a forbid turns into a denial (fail closed).
 */
export function cedarRequests(action: unknown, ctx: DecideContext): CedarRequest[] {
  const principal = uid('Principal', ctx.principal.name);
  const refuse = (tool: string, why: string): CedarRequest[] => [{ principal, action: uid('Action', tool), resource: uid('Gate', 'local'), context: { refused: why } }];
  const request = actionRequestSchema.safeParse(action);
  if (!request.success) return refuse('invalid', 'input');
  const { tool } = request.data;
  const contract = lookupTool(tool);
  // No Cedar action permits a tool outside the registry, so this is denied by default.
  if (contract === undefined) return [{ principal, action: uid('Action', tool), resource: uid('Gate', 'local'), context: {} }];
  const parsed = contract.args.safeParse(request.data.args);
  if (!parsed.success) return refuse(tool, 'input');
  const args: Record<string, unknown> = { ...parsed.data };
  const base: Context = request.data.agent === undefined ? {} : { agent: request.data.agent };

  let cwd = ctx.cwd;
  if (request.data.cwd !== undefined) {
    const at = canonicalPath(request.data.cwd, ctx.gate, undefined);
    if (at === undefined) return refuse(tool, 'cwd');
    cwd = at.real;
  }
  if ((tool === 'exec.run' || tool === 'exec.run_with_secrets') && args['cwd'] === undefined && request.data.cwd !== undefined) args['cwd'] = request.data.cwd;
  const paths: CanonicalPath[] = [];
  for (const spec of contract.paths) {
    const value = args[spec.key];
    if (value === undefined && spec.optional === true) continue;
    for (const raw of spec.list === true && Array.isArray(value) ? (value as unknown[]) : [value]) {
      const at = canonicalPath(raw, ctx.gate, cwd);
      if (at === undefined) return refuse(tool, 'path');
      paths.push(at);
    }
  }

  const own = toolContext(tool, args, paths[0], ctx);
  if (own === undefined) return refuse(tool, 'input');
  const context = { ...base, ...own.context };
  const primary = paths[0];
  const main: CedarRequest = { principal, action: uid('Action', tool), resource: own.resource ?? uid('Path', primary?.real ?? ''), context: { ...context, ...primary } };
  const more = paths.slice(1).map((p) => ({ principal, action: uid('Action', tool), resource: uid('Path', p.real), context: { ...context, ...p } }));
  const out = [main, ...more];
  if (tool === 'exec.run' || tool === 'exec.run_with_secrets') {
    const named = argvPaths(stringList(args['args']), ctx.gate, primary?.real ?? cwd);
    if (named.refused) return refuse(tool, 'argv');
    for (const p of named.paths) out.push({ principal, action: uid('Action', EXEC_ARG), resource: uid('Path', p.real), context: { ...p } });
  }
  return out;
}

/** The caller, whose capabilities are its ceiling; every request names it. */
export function cedarPrincipal(ctx: DecideContext): EntityJson {
  return { uid: uid('Principal', ctx.principal.name), attrs: { capabilities: [...ctx.principal.capabilities] }, parents: [] };
}

/** Tool-specific context and resource; undefined when ORACLE refuses the arguments' shape. */
function toolContext(tool: string, args: Readonly<Record<string, unknown>>, primary: CanonicalPath | undefined, ctx: DecideContext): { context: Context; resource?: EntityUid } | undefined {
  switch (tool) {
    case 'exec.run':
    case 'exec.run_with_secrets':
      return { context: argvContext(stringList(args['args'])), resource: uid('Program', String(args['program'])) };
    case 'net.fetch': {
      const parsed = fetchContext(String(args['url']), String(args['method']), (args['headers'] ?? {}) as Record<string, string>);
      return parsed === undefined ? undefined : { context: parsed.context, resource: uid('Host', parsed.host) };
    }
    case 'git.status':
    case 'git.diff':
    case 'git.log':
    case 'git.commit':
    case 'git.push': {
      // A file-system fact, like canonicalisation: git runs only where `.git` is a directory.
      const worktree = primary !== undefined && ctx.gate.host.reader.entry(`${primary.real.replace(/\/$/u, '')}/.git`).kind === 'dir';
      return { context: { worktree, force: args['force'] === true } };
    }
    default:
      return primary === undefined ? { context: {}, resource: uid('Gate', 'local') } : { context: {} };
  }
}

function uid(type: string, id: string): TypeAndId {
  return { type: `${NS}::${type}`, id };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
