import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { httpsRequest, pathFacts, processIdentity, removeTree } from '../adapters/acceptance-host.js';
import { SANDBOX_UID } from '../toolhost/sandbox-plan.js';
import { describeJob, evidence, linesOf, probeAction, probeRan } from './probe-kit.js';
import { itemResult, OUTCOME, type Evidence, type ItemResult } from './model.js';
import type { SandboxReport, Subject } from './subject.js';

/**
 * Item 1, identity (seed 000 D-O5-6 item 1: "correct account, no admin"): who the gate runs as,
 * who its children run as on the host, the isolation the runtime reports, and the TLS key pin the
 * gate serves. A gate running as root passes only when its children are not root: they run as
 * a dedicated unprivileged account (adapters/agent/job-identity.ts), and the file a child makes
 * is that account's on the host. Children that act as root are a FAIL, not a footnote (the seed's
 * F0 rule: administrator execution satisfies nothing).
 */

const ROOT_WHY = 'children map to host root and can leave root-owned (even setuid-root) files in the tree they work in; install setpriv and useradd (util-linux, passwd) so jobs get the dedicated `oracle-job` account, or run the gate as your own user';

export function gateIdentityEvidence(gate: { readonly uid: number | null; readonly gid: number | null; readonly user: string }, sandbox: SandboxReport): Evidence {
  const who = gate.uid === null ? `no POSIX uid (${gate.user})` : `uid ${String(gate.uid)}, gid ${String(gate.gid ?? 'n/a')} (${gate.user})`;
  const tried = 'the uid the gate process runs as, and the account its children run as';
  if (gate.uid !== 0) return evidence('gate identity', tried, `${who}, not root`, OUTCOME.held);
  if (sandbox.kind === 'bubblewrap' && sandbox.identity.kind === 'dedicated') {
    const { name, uid, gid } = sandbox.identity;
    return evidence('gate identity', tried, `${who}: the gate runs as root; its children drop to ${name} (uid ${String(uid)}, gid ${String(gid)}) before they start`, OUTCOME.held);
  }
  return evidence('gate identity', tried, `${who}: the gate runs as ROOT and so do its children; ${ROOT_WHY}`, OUTCOME.broken);
}

export function sandboxEvidence(sandbox: SandboxReport): Evidence {
  const tried = 'the isolation the runtime probed at start and reports for every child';
  return sandbox.kind === 'bubblewrap'
    ? evidence('isolation in force', tried, `bubblewrap: ${sandbox.detail}`, OUTCOME.held)
    : evidence('isolation in force', tried, `none: ${sandbox.reason}`, OUTCOME.missing);
}

/**
 * Reads the identity probe's lines (`UID`, `CAP CapEff: hex`) and the host owner of the file the
 * child made in its tree, and says whether the child is who the design says: without
 * capabilities, and on the host anyone but root; in a user namespace the sandbox's `nobody` (the
 * host sees the gate's uid), as root's dedicated account that very uid, inside and on the host.
 * (The child's own uid_map is no witness: bubblewrap nests a namespace whose 0 is the gate's uid.)
 */
export function childIdentityEvidence(stdout: string | undefined, hostOwner: number | undefined, sandbox: SandboxReport): Evidence {
  const tried = 'a child job (exec.run `sh probe.sh identity FILE`) prints its uid and effective capabilities and creates FILE in its tree; the battery reads the owner of FILE on the host';
  const uid = Number(linesOf(stdout, 'UID')[0] ?? 'NaN');
  const caps = (linesOf(stdout, 'CAP')[0] ?? '').replace(/^CapEff:\s*/u, '');
  if (!Number.isInteger(uid) || caps === '' || hostOwner === undefined) {
    return evidence('child identity', tried, `the probe gave no usable identity (file on the host: ${hostOwner === undefined ? 'absent' : `uid ${String(hostOwner)}`}): ${stdout ?? '(nothing)'}`, OUTCOME.error);
  }
  const capsNone = /^0+$/u.test(caps);
  const seen = `inside uid ${String(uid)}, CapEff ${caps}; its file is owned by host uid ${String(hostOwner)}`;
  if (hostOwner === 0) return evidence('child identity', tried, `${seen}: the child acts as ROOT on the host; ${ROOT_WHY}`, OUTCOME.broken);
  if (!capsNone) return evidence('child identity', tried, `${seen}: the child holds capabilities`, OUTCOME.broken);
  if (sandbox.kind === 'none') {
    return evidence('child identity', tried, `${seen}: without a sandbox the child runs as the gate's own user with all of its access`, OUTCOME.missing);
  }
  if (sandbox.identity.kind === 'dedicated') {
    const { name, uid: account } = sandbox.identity;
    if (uid !== account || hostOwner !== account) return evidence('child identity', tried, `${seen}: expected ${name} (uid ${String(account)}) inside and on the host`, OUTCOME.broken);
    return evidence('child identity', tried, `${seen}: ${name}, no capabilities, not root on the host`, OUTCOME.held);
  }
  if (uid !== SANDBOX_UID) return evidence('child identity', tried, `${seen}: expected the sandbox user ${String(SANDBOX_UID)}`, OUTCOME.broken);
  return evidence('child identity', tried, `${seen}: the sandbox's nobody, no capabilities, not root on the host`, OUTCOME.held);
}

/** The pin (SPEC §9): what /api/v1/health announces is the key that really answered TLS. */
async function keyPinEvidence(subject: Subject): Promise<Evidence> {
  const tried = `GET ${subject.server.url}/api/v1/health over TLS trusting only the home's CA; compare the SPKI SHA-256 it announces, the key the TLS handshake presented, and the pin the server computed at start`;
  try {
    const reply = await httpsRequest(`${subject.server.url}/api/v1/health`, { ca: subject.server.ca, timeoutMs: 10_000 });
    const body = JSON.parse(reply.text) as { spki_sha256?: unknown; mode?: unknown };
    const announced = typeof body.spki_sha256 === 'string' ? body.spki_sha256 : 'none';
    const seen = `HTTP ${String(reply.status)}; announced ${announced}, presented ${reply.peerSpkiSha256 ?? 'none'}, pinned ${subject.server.spkiSha256}`;
    const same = reply.status === 200 && announced === subject.server.spkiSha256 && reply.peerSpkiSha256 === subject.server.spkiSha256;
    return evidence('key pin', tried, same ? `${seen}: all three agree` : `${seen}: they differ`, same ? OUTCOME.held : OUTCOME.broken);
  } catch (e) {
    return evidence('key pin', tried, e instanceof Error ? e.message : 'the request failed', OUTCOME.error);
  }
}

function policyEvidence(subject: Subject): Evidence {
  const mode = subject.mode();
  const seen = `mode ${mode}, ${subject.policyFile}, ${subject.digest ?? 'no digest'}`;
  // A battery policy that did not load would test read-only mode, not the gate: the run is void.
  return evidence('policy', 'the battery policy the gate loaded', seen, mode === 'normal' && subject.digest !== null ? OUTCOME.held : OUTCOME.error);
}

export async function identityItem(subject: Subject): Promise<ItemResult> {
  const gate = processIdentity();
  const found: Evidence[] = [gateIdentityEvidence(gate, subject.sandbox), sandboxEvidence(subject.sandbox), policyEvidence(subject)];
  const file = join(subject.project, `identity-${randomBytes(6).toString('hex')}`);
  const run = await subject.run(probeAction(subject, ['identity', file]));
  const owner = pathFacts(file)?.uid;
  removeTree(file);
  if (!run.executed || !probeRan(run)) {
    found.push(evidence('child identity', 'a child job (exec.run `sh probe.sh identity FILE`, allowed T1 by the battery policy)', `the job did not run: ${describeJob(run)}`, OUTCOME.error));
  } else {
    found.push(childIdentityEvidence(run.stdout, owner, subject.sandbox));
  }
  found.push(await keyPinEvidence(subject));
  return itemResult('identity', found, 'no child is root on the host (the gate runs as a normal user, or as root with its children dropped to a dedicated account), children hold no capabilities, and the TLS key matches its pin');
}
