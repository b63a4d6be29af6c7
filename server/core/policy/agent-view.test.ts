import { describe, expect, it } from 'vitest';
import { agentView } from './agent-view.js';
import { loadPolicy } from './load.js';
import { LINUX } from '../paths/flavor.js';

const policy = (() => {
  const r = loadPolicy(`principals:\n  agents:\n    fetcher: { capabilities: [net.egress, secret.read] }\n    reader: { capabilities: [fs.read] }\n`, { flavor: LINUX, userHome: '/home/u' });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.policy;
})();

describe('agentView', () => {
  it('names the stored secrets, sorted, only to an agent that may read secrets', () => {
    expect(agentView(policy, 'fetcher', ['npm', 'github']).secrets).toEqual(['github', 'npm']);
    expect(agentView(policy, 'reader', ['npm', 'github']).secrets).toEqual([]);
    expect(agentView(policy, 'nobody', ['npm']).secrets).toEqual([]);
  });
});
