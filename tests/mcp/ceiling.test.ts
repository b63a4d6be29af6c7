import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LINUX } from '../../server/core/paths/flavor.js';
import { loadPolicy } from '../../server/core/policy/load.js';
import { lookupTool } from '../../server/core/tools/registry.js';
import { MCP_TOOLS } from '../../server/mcp/tools.js';
import { REPO } from '../arch/source-files.js';

/** `oracle mcp` offers no tool the shipped policy's `mcp` principal could never use. */
describe('the shipped mcp ceiling', () => {
  it('holds every capability of every tool oracle mcp advertises', () => {
    const loaded = loadPolicy(readFileSync(`${REPO}/config/policy.yaml`, 'utf8'), { flavor: LINUX, userHome: '/home/u' });
    if (!loaded.ok) throw new Error('the shipped policy does not load');
    const ceiling = loaded.policy.agents.get('mcp')?.capabilities ?? new Set();
    const missing = MCP_TOOLS.flatMap((def) => (lookupTool(def.tool)?.capabilities ?? []).filter((c) => !ceiling.has(c)).map((c) => `${def.name} needs ${c}`));
    expect(missing).toEqual([]);
  });
});
