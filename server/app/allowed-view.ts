import type { SecretStore } from '../adapters/secrets/index.js';
import { agentView, type AgentView } from '../core/policy/agent-view.js';
import type { Policy } from '../core/policy/types.js';
import type { RuntimeState } from '../core/decide/context.js';

/**
 * What `oracle_allowed` and `GET /api/v1/allowed` tell an agent (core/policy/agent-view.ts), with
 * the names in the secret store when its ceiling has `secret.read`; the store is not read for an
 * agent that could not name a secret. A store that cannot be listed lists none: a request that
 * names one then says why it is missing. With the asking session named, its taint too.
 */
export async function allowedView(policy: Policy, secrets: SecretStore | undefined, agent: string, session?: { readonly id: string; readonly state: RuntimeState }): Promise<AgentView> {
  const named = session === undefined ? {} : { session: { id: session.id, tainted: session.state.tainted, sources: session.state.provenance.length } };
  const view = agentView(policy, agent);
  if (secrets === undefined || !view.capabilities.includes('secret.read')) return { ...view, ...named };
  return { ...agentView(policy, agent, await secrets.names().catch(() => [])), ...named };
}
