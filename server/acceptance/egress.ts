import { connectFromHost, openCountingListener } from '../adapters/acceptance-host.js';
import { EGRESS_SCRIPT } from './fixtures.js';
import { describeJob, evidence, gateRefused, linesOf, probeRan } from './probe-kit.js';
import { itemResult, OUTCOME, type Evidence, type ItemResult } from './model.js';
import type { SandboxReport, Subject } from './subject.js';

/**
 * Item 3, egress (seed 000 D-O5-6 item 3): the battery opens a listener on host loopback and
 * counts connections. The host itself connects once (the control: the listener works); an agent's
 * net.fetch to it must be refused by the gate; a child job with no net.egress (exec.run) tries to
 * connect and must fail, and the count must not move. Then a network-capable job (a delegate)
 * must reach exactly its allowed endpoint, through its job's egress proxy only.
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

/**
 * A network-capable job (agent.delegate, the battery policy's stand-in agent) reaches the allowed
 * endpoint through its job's egress proxy and nothing else: not a control host through the proxy,
 * not a name that resolves to a private address, not the allowed endpoint itself without the
 * proxy. `accepted`: what the allowed listener and the control listener counted during the job.
 */
export function proxiedEgressEvidence(stdout: string | undefined, job: string, accepted: { readonly api: number; readonly control: number }, sandbox: SandboxReport): Evidence[] {
  const tried = (what: string): string => `a delegated job (agent.delegate; the battery's delegate is \`node ${EGRESS_SCRIPT} proxied\`, allowed the stand-in API only) ${what}`;
  const line = (word: string): string | undefined => linesOf(stdout, word)[0];
  const direct = line('DIRECT');
  const allowed = line('ALLOWED');
  const control = line('CONTROL');
  const privateName = line('PRIVATE');
  if (direct === undefined || allowed === undefined || control === undefined || privateName === undefined) return [evidence('proxied egress', tried('runs the egress probe'), `the probe did not report: ${job}`, OUTCOME.error)];
  const out: Evidence[] = [];
  const counted = `the API listener accepted ${String(accepted.api)}, the control listener ${String(accepted.control)}`;
  out.push(
    allowed === '200' && accepted.api >= 1
      ? evidence('proxied egress: the allowed endpoint', tried('opens a tunnel through its proxy to the stand-in API'), `proxy answered ${allowed}; ${counted}`, OUTCOME.held)
      : evidence('proxied egress: the allowed endpoint', tried('opens a tunnel through its proxy to the stand-in API'), `proxy answered ${allowed}; ${counted}: the allowed endpoint was not reachable`, OUTCOME.error),
  );
  const refused = (what: string, said: string, code: string): Evidence =>
    said.startsWith('403') && said.includes(code) ? evidence(`proxied egress: ${what}`, tried(`asks its proxy for ${what}`), `proxy answered ${said}`, OUTCOME.held) : evidence(`proxied egress: ${what}`, tried(`asks its proxy for ${what}`), `proxy answered ${said}; ${counted}`, OUTCOME.broken);
  out.push(refused('a control host', control, 'EGRESS_DENIED'));
  out.push(refused('a name resolving to a private address', privateName, 'EGRESS_PRIVATE_ADDRESS'));
  if (accepted.control > 0) out.push(evidence('proxied egress: a control host', tried('asks its proxy for a control host'), counted, OUTCOME.broken));
  const directTried = tried('connects to the allowed endpoint directly, without its proxy');
  if (direct.startsWith('BLOCKED')) out.push(evidence('proxied egress: no way around the proxy', directTried, `${direct}: its own network namespace has loopback only`, OUTCOME.held));
  else out.push(sandbox.kind === 'none' ? evidence('proxied egress: no way around the proxy', directTried, `${direct}: without a sandbox the job has the host's network (${sandbox.reason})`, OUTCOME.missing) : evidence('proxied egress: no way around the proxy', directTried, `${direct} under bubblewrap`, OUTCOME.broken));
  return out;
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

    const apiBefore = subject.api.connections();
    const controlBefore = listener.connections();
    const delegated = await subject.run({ tool: 'agent.delegate', args: { description: 'the battery egress probe', prompt: String(port), files: [`${subject.project}/${EGRESS_SCRIPT}`] } });
    const seen = { api: subject.api.connections() - apiBefore, control: listener.connections() - controlBefore };
    if (delegated.error?.code === 'EXECUTOR_UNAVAILABLE' && seen.api === 0 && seen.control === 0) {
      // Refused, not run: without a sandbox the gate runs no network-capable delegate at all.
      found.push(evidence('proxied egress', 'agent.delegate with the battery policy’s delegate (allowed T1)', `the gate refused to run it: ${delegated.error.message}`, OUTCOME.missing));
    } else if (!delegated.executed || !probeRan(delegated)) {
      found.push(evidence('proxied egress', 'agent.delegate with the battery policy’s delegate (allowed T1)', `the job did not run: ${delegated.decision} ${delegated.code ?? ''} ${describeJob(delegated)}`, seen.control > 0 ? OUTCOME.broken : OUTCOME.error));
    } else {
      found.push(...proxiedEgressEvidence(delegated.stdout, describeJob(delegated), seen, subject.sandbox));
    }
  } finally {
    await listener.close();
  }
  return itemResult('egress', found, 'the gate refused net.fetch to host loopback, a child job without net.egress could not connect to a listener the host itself reached, and a network-capable job reached its allowed endpoint through its proxy and nothing else (a control host, a private address, the endpoint without the proxy)');
}
