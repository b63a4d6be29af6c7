import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { httpsRequest, listDir, openEventStream, readText, scanTree, type EventStream } from '../adapters/acceptance-host.js';
import { CANARY_VARIABLE, PROBE_SCRIPT } from './fixtures.js';
import { evidence, linesOf, oneLine, until } from './probe-kit.js';
import { JOB_ID } from './isolation.js';
import { itemResult, OUTCOME, type Evidence, type ItemResult } from './model.js';
import type { Subject } from './subject.js';

/**
 * Item 6, key hygiene (seed 000 D-O5-4, D-O5-6 item 7; SPEC §6 "Secrets"): the canary stored
 * before the gate started is handed to a job by exec.run_with_secrets, over the real HTTPS API:
 * an agent submits, the desktop approves the card, the job prints the canary, writes it into its
 * job directory and to stderr. Then the canary (plain or base64) must be absent from the agent's
 * response, every live event the desktop received, the job directories and every file of the
 * home but the secret store itself: the audit log above all.
 */

interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly text: string;
}

async function api(subject: Subject, call: { readonly method: string; readonly path: string; readonly auth: string; readonly body?: unknown }): Promise<Reply> {
  const reply = await httpsRequest(`${subject.server.url}${call.path}`, {
    ca: subject.server.ca,
    method: call.method,
    headers: { authorization: call.auth },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(reply.text) as Record<string, unknown>;
  } catch {
    // kept as text; the checks below say what came back
  }
  return { status: reply.status, body, text: reply.text };
}

/** Waits for the card of the agent's action and approves it as the desktop, as a person would. */
async function approveAsDesktop(subject: Subject): Promise<Evidence> {
  const tried = 'the desktop lists the pending cards over HTTPS and approves the exec.run_with_secrets card with its nonce and arg_hash';
  let card: Record<string, unknown> | undefined;
  const end = Date.now() + 15_000;
  while (card === undefined && Date.now() < end) {
    const list = await api(subject, { method: 'GET', path: '/api/v1/approvals', auth: subject.server.desktopAuth });
    const approvals = Array.isArray(list.body['approvals']) ? (list.body['approvals'] as Record<string, unknown>[]) : [];
    card = approvals.find((a) => a['tool'] === 'exec.run_with_secrets' && a['state'] === 'pending');
    if (card === undefined) await new Promise((r) => setTimeout(r, 50));
  }
  if (card === undefined) return evidence('approval', tried, 'no pending card appeared', OUTCOME.error);
  const answer = await api(subject, { method: 'POST', path: `/api/v1/approvals/${String(card['approval_id'])}/approve`, auth: subject.server.desktopAuth, body: { nonce: card['nonce'], arg_hash: card['arg_hash'] } });
  const seen = `card ${String(card['approval_id'])}, tier ${String(card['tier'])}; approve answered HTTP ${String(answer.status)}`;
  return evidence('approval', tried, seen, answer.status === 200 && card['tier'] === 'T2' ? OUTCOME.held : OUTCOME.error);
}

function absent(check: string, tried: string, searched: { readonly text: string; readonly needles: readonly string[]; readonly note?: string }): Evidence {
  const hit = searched.needles.some((n) => searched.text.includes(n));
  const note = searched.note ?? '';
  return evidence(check, tried, hit ? `the canary is there${note}` : `absent${note}`, hit ? OUTCOME.broken : OUTCOME.held);
}

export async function keyHygieneItem(subject: Subject): Promise<ItemResult> {
  const found: Evidence[] = [];
  const { value, name } = subject.canary;
  const needles = [value, Buffer.from(value, 'utf8').toString('base64')];
  const expectedHash = createHash('sha256').update(value, 'utf8').digest('hex');
  found.push(evidence('canary', 'store a canary secret before the gate starts, as an operator would with `oracle secrets set`', `stored as \`${name}\` in the ${subject.secrets.kind} store (${subject.secrets.reason})`, subject.secrets.kind === 'none' ? OUTCOME.error : OUTCOME.held));

  let stream: EventStream | undefined;
  try {
    stream = await openEventStream(`${subject.server.url}/api/v1/events`, { ca: subject.server.ca, headers: { authorization: subject.server.desktopAuth } });
    await until(() => (subject.eventSubscribers() > 0 ? true : undefined), 5000);
    const action = { tool: 'exec.run_with_secrets', args: { program: 'sh', args: [PROBE_SCRIPT, 'canary'], cwd: subject.project, timeout: 30, secrets: { [CANARY_VARIABLE]: name } } };
    const submitted = api(subject, { method: 'POST', path: '/api/v1/actions?wait=30', auth: subject.server.agentAuth, body: action });
    found.push(await approveAsDesktop(subject));
    const reply = await submitted;
    const stdout = typeof reply.body['stdout'] === 'string' ? reply.body['stdout'] : '';
    const used = linesOf(stdout, 'CANARY-SHA256')[0] === expectedHash;
    found.push(
      evidence(
        'job used the canary',
        `an agent POSTs exec.run_with_secrets (\`sh ${PROBE_SCRIPT} canary\`, ${CANARY_VARIABLE} from \`${name}\`) to /api/v1/actions; the job prints the canary's SHA-256 and the canary itself, writes it to its job directory and to stderr`,
        `HTTP ${String(reply.status)}, executed ${String(reply.body['executed'])}; SHA-256 ${used ? 'matches' : 'does not match'}; stdout: ${oneLine(stdout.replace(/^CANARY-SHA256 .*$/mu, 'CANARY-SHA256 …'), 200)}`,
        used ? OUTCOME.held : OUTCOME.error,
      ),
    );
    found.push(absent('agent response', "search the agent's whole HTTPS response for the canary (plain and base64)", { text: reply.text, needles }));
    await until(() => (stream?.events().includes('action.finished') === true ? true : undefined), 5000);
    const events = stream.events().filter((e) => e !== 'heartbeat');
    found.push(evidence('events received', "the desktop's live stream (GET /api/v1/events over HTTPS) during the run", events.length === 0 ? 'no event arrived, so their contents prove nothing' : events.join(', '), events.length === 0 ? OUTCOME.error : OUTCOME.held));
    found.push(absent('events', 'search every byte the event stream delivered for the canary (plain and base64)', { text: stream.raw(), needles, note: ` from ${String(stream.raw().length)} bytes of events` }));
  } finally {
    stream?.close();
  }

  const leftJobs = listDir(subject.jobsRoot).filter((d) => JOB_ID.test(d));
  found.push(evidence('job dirs', 'look for job directories after the job ended (it wrote the canary into its own)', leftJobs.length === 0 ? 'none left' : `${String(leftJobs.length)} left: ${leftJobs.join(', ')}`, leftJobs.length === 0 ? OUTCOME.held : OUTCOME.broken));

  const auditDir = join(subject.home, 'logs', 'audit');
  const lines = listDir(auditDir).flatMap((f) => (readText(join(auditDir, f)) ?? '').split('\n').filter((l) => l !== ''));
  const dirty = lines.filter((l) => needles.some((n) => l.includes(n)));
  const usedName = lines.some((l) => l.includes(name));
  found.push(
    evidence(
      'audit lines',
      `search every line of ${auditDir} for the canary (plain and base64)`,
      dirty.length === 0 ? `${String(lines.length)} lines, none holds the canary${usedName ? '; the secret is named where it was used' : ''}` : `${String(dirty.length)} of ${String(lines.length)} lines hold the canary`,
      lines.length === 0 ? OUTCOME.error : dirty.length === 0 ? OUTCOME.held : OUTCOME.broken,
    ),
  );

  // The store holds the canary by design; every other file of the home must not.
  const store = subject.secrets.kind === 'file' ? subject.secrets.file : undefined;
  const scan = scanTree(subject.home, needles, (path) => path === store);
  const where = scan.hits.map((h) => h.path.slice(subject.home.length + 1));
  const unreadable = scan.unreadable.length === 0 ? '' : `; unreadable: ${scan.unreadable.join(', ')}`;
  found.push(
    evidence(
      'home',
      `search every file under ${subject.home} (logs, audit, data, certs, job root) except the secret store itself for the canary (plain and base64)`,
      `${String(scan.files)} files, ${String(scan.bytes)} bytes${scan.skipped.length === 0 ? '' : `; skipped the store ${scan.skipped.join(', ')}`}${unreadable}: ${where.length === 0 ? 'absent' : `found in ${where.join(', ')}`}`,
      where.length > 0 ? OUTCOME.broken : scan.unreadable.length > 0 ? OUTCOME.error : OUTCOME.held,
    ),
  );
  return itemResult('key-hygiene', found, 'a job received and printed the canary, yet it was absent from the agent’s response, every live event, the job directories, the audit log and every other file of the home');
}
