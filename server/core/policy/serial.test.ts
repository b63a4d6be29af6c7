import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LINUX, WINDOWS } from '../paths/flavor.js';
import { loadPolicy } from './load.js';
import { policyFromJson, policyToJson } from './serial.js';

const config = new URL('../../../config/', import.meta.url);
const files = ['policy.yaml', ...readdirSync(new URL('examples/', config)).filter((f) => f.endsWith('.yaml')).map((f) => `examples/${f}`)];

describe('a policy through JSON (the headless hook cache)', () => {
  it.each(files)('comes back equal, Sets, Maps and optional fields included: %s', (file) => {
    const text = readFileSync(new URL(file, config), 'utf8');
    for (const [flavor, userHome] of [
      [LINUX, '/home/u'],
      [WINDOWS, 'C:/Users/u'],
    ] as const) {
      const loaded = loadPolicy(text, { flavor, userHome });
      if (!loaded.ok) continue; // an example of an invalid policy is never cached
      const back = policyFromJson(JSON.parse(JSON.stringify(policyToJson(loaded.policy))));
      expect(back).toEqual(loaded.policy);
      expect(back?.programs).toBeInstanceOf(Map);
      expect(back?.capabilities).toBeInstanceOf(Set);
    }
  });

  it('keeps an optional field absent where the policy left it out', () => {
    const loaded = loadPolicy('version: 1\nscopes: {}\nprograms:\n  ls: {}\n  git: { path: /usr/bin/git }\negress: { allow: [{ host: a.example, why: x }, { host: "b.example:8443", why: y }] }\n', { flavor: LINUX, userHome: '/home/u' });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const back = policyFromJson(JSON.parse(JSON.stringify(policyToJson(loaded.policy))));
    expect(back?.programs.get('ls')?.path).toBeUndefined();
    expect(back?.programs.get('git')?.path).toBe('/usr/bin/git');
    expect(back?.egress.allow.map((h) => h.port)).toEqual([undefined, '8443']);
    expect(back).toEqual(loaded.policy);
  });

  it('refuses what it did not write', () => {
    const loaded = loadPolicy('version: 1\nscopes: {}\n', { flavor: LINUX, userHome: '/h' });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const good = policyToJson(loaded.policy);
    for (const bad of [null, [], 'x', {}, { ...good, capabilities: 'fs.read' }, { ...good, programDefault: 'allow' }, { ...good, egress: { allow: [], default: 'allow' } }, { ...good, programs: [{}] }, { ...good, agents: [{ name: 'a', capabilities: [1] }] }]) {
      expect(policyFromJson(bad)).toBeUndefined();
    }
    expect(policyFromJson(good)).toBeDefined();
  });
});
