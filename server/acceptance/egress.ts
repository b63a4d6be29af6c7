import { connectFromHost, openCountingListener } from '../adapters/acceptance-host.js';
import { EGRESS_SCRIPT } from './fixtures.js';
import { describeJob, evidence, gateRefused, linesOf, probeRan } from './probe-kit.js';
import { itemResult, OUTCOME, type Evidence, type ItemResult } from './model.js';
import type { SandboxReport, Subject } from './subject.js';

/**
 * Item 3, egress (seed 000 D-O5-6 item 3): the battery opens a listener on host loopback and
 * counts connections. The host itself connects once (the control: the listener works); an agent's
 * net.fetch to it must be refused by the gate; a child job with no net.egress (exec.run) tries to
 * connect and must fail, and the count must not move.
 */

/** How the child's attempt counts, from what it printed and what the listener saw. */
export function childEgressEvidence(stdout: string | undefined, job: string, accepted: number, sandbox: SandboxReport): Evidence {
  const tried = `a child job (exec.run \`node ${EGRESS_SCRIPT} PORT\`, no net.egress) connects to the battery's listener on 127.0.0.1`;
  const said = linesOf(stdout, 'BLOCKED')[0];
  const connected = linesOf(stdout, 'CONNECTED').length > 0 || accepted > 0;
  const seen = `child said ${said === undefined ? (connected ? 'CONNECTED' : 'nothing') : `BLOCKED ${said}`}; the listener accepted ${String(accepted)} connection(s) from it`;
  if (connected) {
    return sandbox.kind === 'none' ? evidence('child egress', tried, `${seen}: no network namespace without a sandbox (${sandbox.reason})`, OUTCOME.missing) : evidence('child egress', tried, `${seen}: it reached the host under bubblewrap`, OUTCOME.broken);
  }
  if (said === undefined) return evidence('child egress', tried, `the probe did not report: ${job}`, OUTCOME.error);
  return evidence('child egress', tried, `${seen}: its own network namespace has no way to the host`, OUTCOME.held);
}

export async function egressItem(subject: Subject): Promise<ItemResult> {
  const listener = await openCountingListener();
  const found: Evidence[] = [];
  try {
    const port = listener.port;
    const control = await connectFromHost(port, 5000);
    const afterControl = listener.connections();
    const listening = control === 'CONNECTED' && afterControl === 1;
    found.push(evidence('listener', `open a TCP listener on 127.0.0.1:${String(port)} and connect to it from the host`, `host connect: ${control}; accepted ${String(afterControl)}`, listening ? OUTCOME.held : OUTCOME.error));
    if (!listening) return itemResult('egress', found, '');

    const fetch = await subject.run({ tool: 'net.fetch', args: { url: `http://127.0.0.1:${String(port)}/exfil`, method: 'GET' } });
    const fetched = listener.connections() - afterControl;
    found.push(gateRefused('gate: net.fetch to loopback', `net.fetch GET http://127.0.0.1:${String(port)}/exfil through the lifecycle (headless)`, fetch, 'deny'));
    if (fetched > 0) found.push(evidence('gate: net.fetch to loopback', 'count connections after the refused fetch', `the listener accepted ${String(fetched)}`, OUTCOME.broken));

    const before = listener.connections();
    const run = await subject.run({ tool: 'exec.run', args: { program: 'node', args: [EGRESS_SCRIPT, String(port)], cwd: subject.project, timeout: 20 } });
    const accepted = listener.connections() - before;
    if (!run.executed || !probeRan(run)) {
      found.push(evidence('child egress', `exec.run \`node ${EGRESS_SCRIPT} ${String(port)}\` (allowed T1 by the battery policy)`, `the job did not run: ${run.decision} ${run.code ?? ''} ${describeJob(run)}`, accepted > 0 ? OUTCOME.broken : OUTCOME.error));
    } else {
      found.push(childEgressEvidence(run.stdout, describeJob(run), accepted, subject.sandbox));
    }
  } finally {
    await listener.close();
  }
  return itemResult('egress', found, 'the gate refused net.fetch to host loopback, and a child job without net.egress could not connect to a listener the host itself reached');
}
