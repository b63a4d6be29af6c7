import { getCedarVersion, preparsePolicySet, statefulIsAuthorized, type EntityJson, type StatefulAuthorizationCall } from '@cedar-policy/cedar-wasm/nodejs';
import type { CedarRequest } from './request.js';
import { actionEntity } from './tools.js';

/** What Cedar answered for one ORACLE action (all of its requests). */
export interface CedarAnswer {
  readonly decision: 'allow' | 'deny';
  /** Ids of the policies that determined it: the forbids that fired, else the permits. */
  readonly reasons: readonly string[];
  /** Policies Cedar skipped because they errored (ORACLE would have denied instead). */
  readonly errors: readonly string[];
}

export interface CedarEngine {
  readonly version: string;
  /** Calls ready for `statefulIsAuthorized`, so a timed loop measures Cedar and nothing else. */
  readonly calls: (requests: readonly CedarRequest[]) => StatefulAuthorizationCall[];
  readonly authorize: (calls: readonly StatefulAuthorizationCall[]) => CedarAnswer;
}

/** @cedar-policy/cedar-wasm (nodejs build) with the policy set parsed once, as SPEC §14 asks. */
export function cedarEngine(id: string, policies: Readonly<Record<string, string>>, principal: EntityJson): CedarEngine {
  const parsed = preparsePolicySet(id, { staticPolicies: { ...policies } });
  if (parsed.type === 'failure') throw new TypeError(`the Cedar translation does not parse: ${parsed.errors.map((e) => e.message).join('; ')}`);
  return {
    version: getCedarVersion(),
    calls: (requests) => requests.map((r) => ({ ...r, preparsedPolicySetId: id, entities: [principal, actionEntity(r.action.id)] })),
    authorize: (calls) => {
      const reasons: string[] = [];
      const errors: string[] = [];
      let decision: 'allow' | 'deny' = 'allow';
      for (const call of calls) {
        const answer = statefulIsAuthorized(call);
        if (answer.type === 'failure') {
          decision = 'deny';
          errors.push(...answer.errors.map((e) => e.message));
          continue;
        }
        const { response } = answer;
        errors.push(...response.diagnostics.errors.map((e) => `${e.policyId}: ${e.error.message}`));
        if (response.decision === 'deny') {
          decision = 'deny';
          reasons.push(...response.diagnostics.reason);
        }
      }
      return { decision, reasons, errors };
    },
  };
}
