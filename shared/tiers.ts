/**
 * Risk tiers (SPEC §4). T0 and T1 run (T1 is logged and undoable), T2 needs any device whose
 * profile allows it, T3 needs the desktop and a typed phrase, T4 never runs.
 */
export const TIERS = ['T0', 'T1', 'T2', 'T3', 'T4'] as const;

export type Tier = (typeof TIERS)[number];

export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}

export function tierRank(tier: Tier): number {
  return TIERS.indexOf(tier);
}

export function maxTier(a: Tier, b: Tier): Tier {
  return tierRank(a) >= tierRank(b) ? a : b;
}

/** One step up, saturating at T4 (taint escalation, SPEC §4). T0 stays T0. */
export function bumpTier(tier: Tier): Tier {
  switch (tier) {
    case 'T0':
      return 'T0'; // reads inside a scope stay reads: taint is about what the agent does next
    case 'T1':
      return 'T2';
    case 'T2':
      return 'T3';
    case 'T3':
      return 'T4'; // an irreversible act planned from untrusted content is never executed
    case 'T4':
      return 'T4';
  }
}
