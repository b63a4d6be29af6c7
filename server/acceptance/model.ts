/**
 * The host acceptance battery's item model (SPEC §13, seed 000 D-O5-6): seven items, each with
 * exactly one status, a reason and the evidence it rests on. Pure: no I/O, no clock.
 */

/**
 * The three statuses of SPEC §13. None is ever reported as another: a probe that errored is a
 * FAIL, never a PASS; UNSUPPORTED-ON-HOST only when the host lacks the mechanism itself.
 */
export const STATUS = { pass: 'PASS', fail: 'FAIL', unsupported: 'UNSUPPORTED-ON-HOST' } as const;
export type Status = (typeof STATUS)[keyof typeof STATUS];
export const STATUSES: readonly Status[] = [STATUS.pass, STATUS.fail, STATUS.unsupported];

/** The items, in the order the seed lists them (D-O5-6 1–7). */
export const ITEM_IDS = ['identity', 'isolation', 'egress', 'injection', 'concurrency', 'post-reboot', 'key-hygiene'] as const;
export type ItemId = (typeof ITEM_IDS)[number];

export const ITEM_TITLES: { readonly [K in ItemId]: string } = {
  identity: 'who the gate and its children run as, the isolation in force, the TLS key pin',
  isolation: 'a child cannot read the policy, the ORACLE home, another job, or the secret store',
  egress: 'a child without net.egress reaches nothing; a network-capable job reaches its allowed endpoint through its proxy, nothing else',
  injection: 'documents (Markdown, PDF, text hidden in an image) that instruct exfiltration, a push and out-of-job writes get nowhere',
  concurrency: 'N jobs at once: no cross-job reads, distinct job dirs, clean teardown of all N',
  'post-reboot': 'the gate comes back after a reboot: the login service is enabled, restarts on failure and runs',
  'key-hygiene': 'a canary secret used by a job is absent from logs, events, job dirs and audit lines',
};

/**
 * How one check came out:
 * - held: the boundary held (the expected refusal was observed);
 * - broken: the boundary did not hold (a leak, an allow that should not be);
 * - missing: the host lacks the mechanism this check needs (no bubblewrap, say);
 * - error: the check could not be carried out as designed (it proves nothing).
 */
export const OUTCOME = { held: 'held', broken: 'broken', missing: 'missing', error: 'error' } as const;
export type Outcome = (typeof OUTCOME)[keyof typeof OUTCOME];

/** One concrete observation: what was tried, what was seen, how that counts. */
export interface Evidence {
  readonly check: string;
  readonly tried: string;
  readonly observed: string;
  readonly outcome: Outcome;
  /** `sha256:` of `observed`, added when the report is made (the battery's evidence record). */
  readonly observed_sha256?: string;
}

export interface ItemResult {
  readonly id: ItemId;
  readonly title: string;
  readonly status: Status;
  readonly reason: string;
  readonly evidence: readonly Evidence[];
}

export interface Summary {
  readonly total: number;
  readonly pass: number;
  readonly fail: number;
  readonly unsupported_on_host: number;
  /** The command's exit status: 1 when any item failed (see exitCode). */
  readonly exit_code: 0 | 1;
}

export interface Report<Host = Readonly<Record<string, unknown>>> {
  readonly host: Host;
  readonly items: readonly ItemResult[];
  readonly summary: Summary;
}

const first = (evidence: readonly Evidence[], outcome: Outcome): Evidence | undefined => evidence.find((e) => e.outcome === outcome);

/**
 * An item's status from its evidence. One exhaustive rule, in this order:
 * - no evidence at all: FAIL (a probe that observed nothing proves nothing);
 * - any error: FAIL, with the error (never PASS, never UNSUPPORTED);
 * - any broken boundary: FAIL, with what leaked;
 * - any missing mechanism: UNSUPPORTED-ON-HOST, with what is missing;
 * - otherwise every check held: PASS.
 */
export function itemResult(id: ItemId, evidence: readonly Evidence[], passReason: string): ItemResult {
  const item = (status: Status, reason: string): ItemResult => ({ id, title: ITEM_TITLES[id], status, reason, evidence });
  const error = first(evidence, OUTCOME.error);
  const broken = first(evidence, OUTCOME.broken);
  const missing = first(evidence, OUTCOME.missing);
  if (evidence.length === 0) return item(STATUS.fail, 'no check was carried out, so nothing was shown');
  if (error !== undefined) return item(STATUS.fail, `${error.check}: the probe could not run as designed: ${error.observed}`);
  if (broken !== undefined) return item(STATUS.fail, `${broken.check}: ${broken.observed}`);
  if (missing !== undefined) return item(STATUS.unsupported, `${missing.check}: ${missing.observed}`);
  return item(STATUS.pass, passReason);
}

/** A probe that threw: FAIL with the error, and whatever it had observed before. */
export function erroredItem(id: ItemId, message: string, evidence: readonly Evidence[] = []): ItemResult {
  return {
    id,
    title: ITEM_TITLES[id],
    status: STATUS.fail,
    reason: `the probe failed unexpectedly: ${message}`,
    evidence: [...evidence, { check: 'probe', tried: `running the ${id} probe`, observed: message, outcome: OUTCOME.error }],
  };
}

/** Exit status of `oracle acceptance`: non-zero when any item is FAIL, whatever else passed. */
export function exitCode(items: readonly ItemResult[]): 0 | 1 {
  return items.some((i) => i.status === STATUS.fail) ? 1 : 0;
}

/**
 * The report in item order, every item present exactly once: an item no probe reported (a bug in
 * the battery) is a FAIL, never silently absent.
 */
export function buildReport<Host>(host: Host, results: readonly ItemResult[]): Report<Host> {
  const items = ITEM_IDS.map((id) => {
    const found = results.filter((r) => r.id === id);
    if (found.length === 1 && found[0] !== undefined) return found[0];
    return erroredItem(id, found.length === 0 ? 'the battery produced no result for this item' : 'the battery produced more than one result for this item');
  });
  const count = (status: Status) => items.filter((i) => i.status === status).length;
  return {
    host,
    items,
    summary: { total: items.length, pass: count(STATUS.pass), fail: count(STATUS.fail), unsupported_on_host: count(STATUS.unsupported), exit_code: exitCode(items) },
  };
}
