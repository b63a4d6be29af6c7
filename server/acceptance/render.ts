import type { Evidence, Report } from './model.js';

/** The host facts a report starts with (gathered by the battery; rendered here as given). */
export interface HostSection {
  readonly platform: string;
  readonly release: string;
  readonly arch: string;
  readonly node: string;
  readonly uid: number | null;
  readonly user: string;
  readonly root: boolean;
  readonly sandbox: string;
  readonly secrets: string;
  readonly home: string;
  /** False when the battery made the home itself and removed it afterwards. */
  readonly home_kept: boolean;
  readonly policy_digest: string | null;
  readonly started_at: string;
  readonly duration_ms: number;
}

/** `--json`: one clean document and nothing else on stdout. */
export function renderJson(report: Report<HostSection>): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const MARK: Readonly<Record<Evidence['outcome'], string>> = { held: 'ok  ', broken: 'LEAK', missing: 'N/A ', error: 'ERR ' };

const pad = (text: string, width: number): string => (text.length >= width ? `${text} ` : text.padEnd(width));

/** The human report: host, one table row per item, then the evidence behind each row. */
export function renderTable(report: Report<HostSection>): string {
  const { host, items, summary } = report;
  const lines: string[] = [
    'ORACLE host acceptance battery (SPEC §13)',
    `host:     ${host.platform} ${host.release} ${host.arch}, node ${host.node}`,
    `gate:     uid ${host.uid === null ? 'n/a' : String(host.uid)} (${host.user})${host.root ? ', ROOT' : ''}`,
    `sandbox:  ${host.sandbox}`,
    `secrets:  ${host.secrets}`,
    `home:     ${host.home} (${host.home_kept ? 'kept' : 'removed after the run'}; battery policy ${host.policy_digest ?? 'unreadable'})`,
    '',
  ];
  const idWidth = Math.max(4, ...items.map((i) => i.id.length)) + 2;
  const statusWidth = Math.max(6, ...items.map((i) => i.status.length)) + 2;
  lines.push(`${pad('ITEM', idWidth)}${pad('STATUS', statusWidth)}REASON`);
  for (const item of items) lines.push(`${pad(item.id, idWidth)}${pad(item.status, statusWidth)}${item.reason}`);
  lines.push('');
  for (const item of items) {
    lines.push(`${item.id}: ${item.title}`);
    for (const e of item.evidence) {
      lines.push(`  [${MARK[e.outcome]}] ${e.check}`);
      lines.push(`         tried:    ${e.tried}`);
      lines.push(`         observed: ${e.observed}`);
    }
  }
  lines.push('');
  lines.push(`summary: ${String(summary.pass)} PASS, ${String(summary.fail)} FAIL, ${String(summary.unsupported_on_host)} UNSUPPORTED-ON-HOST of ${String(summary.total)} (exit ${String(summary.exit_code)}, ${String(host.duration_ms)} ms)`);
  return `${lines.join('\n')}\n`;
}
