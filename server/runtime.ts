import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AuditAppender, sha256Text } from './adapters/audit/appender.js';
import { canonicalJson } from './core/audit/record.js';
import { runHeadless, type RunResult } from './core/lifecycle/headless.js';
import { evaluate } from './core/decide/decide.js';
import { redact, redactDeep } from './core/redact/index.js';
import { openGate, type GateOptions, type GateState } from './gate.js';
import { openToolhost, type Toolhost } from './toolhost/open.js';
import { applyUndo } from './toolhost/undo.js';
import type { ExecutionResult } from './toolhost/types.js';
import { hostFacts } from './adapters/host.js';
import { ensurePrivateDir } from './adapters/files.js';

/**
 * The whole gate for one process: policy, toolhost and audit log, wired once (composition root
 * shared by `oracle run`, `oracle undo` and, later, the server).
 */
export interface Runtime {
  readonly gate: GateState;
  readonly toolhost: Toolhost;
  readonly audit: AuditAppender;
  run(action: unknown): Promise<RunResult>;
  undo(id: string): Promise<ExecutionResult>;
  close(): Promise<void>;
}

const PREVIEW_CHARS = 160;

/**
 * Arguments as the audit log shows them (SPEC §6, §7): redacted first, as whole values, then cut
 * short; so a secret is never split by the cut before the sink could see it.
 */
export function previewArgs(args: Readonly<Record<string, unknown>> | null): string {
  if (args === null) return '';
  const { value } = redactDeep(args);
  const short = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'string' && v.length > PREVIEW_CHARS ? `${v.slice(0, PREVIEW_CHARS)}…(+${String(v.length - PREVIEW_CHARS)})` : v,
  );
  return short.length > 2048 ? `${short.slice(0, 2048)}…` : short;
}

export async function openRuntime(options: GateOptions & { readonly actor: string; readonly resolve?: (host: string) => Promise<string[]> }): Promise<Runtime> {
  const gate = openGate(options);
  const host = options.host ?? hostFacts();
  ensurePrivateDir(join(gate.home, 'data'));
  const audit = AuditAppender.open(join(gate.home, 'logs', 'audit'));
  const now = () => new Date();
  if (audit.repaired !== undefined) {
    await audit.append({ kind: 'audit.repair', ts: now().toISOString(), actor: 'oracle', detail: { file: audit.repaired.file, removed_bytes: audit.repaired.removedBytes } });
  }
  await audit.append({
    kind: 'policy.load',
    ts: now().toISOString(),
    actor: 'oracle',
    outcome: gate.mode,
    detail: { policy: gate.policyFile, digest: gate.digest, errors: gate.errors.length },
  });
  const toolhost = await openToolhost({
    home: gate.home,
    gate: gate.context.gate,
    env: options.env ?? process.env,
    platform: host.platform,
    redact: (text, known) => redact(text, known).text,
    ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
  });
  const digest = (value: unknown): string => `sha256:${sha256Text(canonicalJson(value))}`;
  return {
    gate,
    toolhost,
    audit,
    run: (action) =>
      runHeadless(action, {
        evaluate: (a) => evaluate(a, gate.context),
        audit: (body) => audit.append(body),
        execute: (prepared) => toolhost.boundary.execute(prepared),
        now,
        newActionId: () => `ac_${randomBytes(12).toString('hex')}`,
        digest,
        preview: previewArgs,
        actor: options.actor,
      }),
    async undo(id) {
      // An undo is a side effect too: durable in the log before it touches anything.
      const body = { kind: 'undo' as const, actor: options.actor, detail: { undo_id: id } };
      await audit.append({ ...body, ts: now().toISOString(), outcome: 'dispatched' });
      const result = await applyUndo(id, toolhost.env);
      const error = result.error === undefined ? {} : { error: result.error.message };
      await audit.append({ ...body, ts: now().toISOString(), outcome: result.ok ? 'ok' : (result.error?.code ?? 'failed'), detail: { undo_id: id, ...error } });
      return result;
    },
    close: () => audit.close(),
  };
}
