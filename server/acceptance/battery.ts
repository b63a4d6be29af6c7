import { hostSystem, processIdentity, sha256Hex } from '../adapters/acceptance-host.js';
import { concurrencyItem } from './concurrency.js';
import { egressItem } from './egress.js';
import { identityItem } from './identity.js';
import { injectionItem } from './injection.js';
import { isolationItem } from './isolation.js';
import { keyHygieneItem } from './key-hygiene.js';
import { postRebootItem } from './post-reboot.js';
import { buildReport, erroredItem, ITEM_IDS, type ItemId, type ItemResult, type Report } from './model.js';
import type { HostSection } from './render.js';
import { BatteryHomeError, openBattery, type Subject } from './subject.js';

/**
 * `oracle acceptance` (SPEC §13): open the gate the way `oracle serve` does, in a fresh home, run
 * the seven items one after another (the isolation and concurrency items watch the job root, so
 * nothing else may run beside them), and report. An item that throws or hangs is a FAIL with the
 * error; a gate that does not start fails every item.
 */
export type ItemProbe = (subject: Subject) => Promise<ItemResult>;

export const PROBES: { readonly [K in ItemId]: ItemProbe } = {
  identity: identityItem,
  isolation: (s) => isolationItem(s),
  egress: egressItem,
  injection: injectionItem,
  concurrency: (s) => concurrencyItem(s),
  'post-reboot': () => postRebootItem(),
  'key-hygiene': keyHygieneItem,
};

/** No single item may hold the battery longer than this. */
export const ITEM_TIMEOUT_MS = 120_000;

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function guarded(id: ItemId, probe: ItemProbe, subject: Subject, timeoutMs: number): Promise<ItemResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ItemResult>((resolve) => {
    timer = setTimeout(() => {
      resolve(erroredItem(id, `it did not finish within ${String(timeoutMs)} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([probe(subject).catch((e: unknown) => erroredItem(id, message(e))), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every item, in order, each on its own: one item's failure never hides another's result. */
export async function runItems(subject: Subject, probes: { readonly [K in ItemId]: ItemProbe } = PROBES, timeoutMs = ITEM_TIMEOUT_MS): Promise<ItemResult[]> {
  const out: ItemResult[] = [];
  for (const id of ITEM_IDS) out.push(await guarded(id, probes[id], subject, timeoutMs));
  return out;
}

export interface BatteryRun {
  readonly report: Report<HostSection>;
  /** Teardown trouble (a canary that could not be deleted): for stderr, not an item. */
  readonly problems: readonly string[];
}

export { BatteryHomeError };

export async function runBattery(options: { readonly home?: string | undefined }): Promise<BatteryRun> {
  const started = new Date();
  const system = hostSystem();
  const gate = processIdentity();
  const host = (fields: Pick<HostSection, 'sandbox' | 'secrets' | 'home' | 'home_kept' | 'policy_digest'>): HostSection => ({
    ...system,
    uid: gate.uid,
    user: gate.user,
    root: gate.uid === 0,
    ...fields,
    started_at: started.toISOString(),
    duration_ms: Date.now() - started.getTime(),
  });
  let opened;
  try {
    opened = await openBattery(options);
  } catch (e) {
    if (e instanceof BatteryHomeError) throw e;
    const why = `the gate could not be started on its real launch path: ${message(e)}`;
    const items = ITEM_IDS.map((id) => erroredItem(id, why));
    return { report: buildReport(host({ sandbox: 'unknown', secrets: 'unknown', home: options.home ?? '(temporary)', home_kept: options.home !== undefined, policy_digest: null }), items.map(withDigests)), problems: [] };
  }
  const { subject } = opened;
  let items: ItemResult[];
  try {
    items = await runItems(subject);
  } catch (e) {
    // The gate is stopped and the scratch tree removed whatever happened.
    await opened.close();
    throw e;
  }
  const problems = await opened.close();
  const sandbox = subject.sandbox.kind === 'bubblewrap' ? `bubblewrap (${subject.sandbox.detail})` : `none: ${subject.sandbox.reason}`;
  return {
    report: buildReport(host({ sandbox, secrets: `${subject.secrets.kind}: ${subject.secrets.reason}`, home: subject.home, home_kept: options.home !== undefined, policy_digest: subject.digest }), items.map(withDigests)),
    problems,
  };
}

/** Each observation recorded with the SHA-256 of exactly what it says was observed (issue 17). */
function withDigests(item: ItemResult): ItemResult {
  return { ...item, evidence: item.evidence.map((e) => ({ ...e, observed_sha256: `sha256:${sha256Hex(e.observed)}` })) };
}
