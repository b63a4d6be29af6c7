import { describe, expect, it } from 'vitest';
import { systemdUnit, unitSearchPath } from './systemd-unit.js';

const spec = { node: '/usr/bin/node', entry: '/opt/oracle/dist/server/cli/oracle.js', home: '/home/me/.oracle' };

describe('the PATH the gate’s systemd unit runs with', () => {
  it('leaves out npm’s node_modules/.bin folders, npx’s transient cache and node-gyp-bin, keeping the rest in order', () => {
    const installing = [
      '/home/me/app/node_modules/.bin',
      '/home/me/node_modules/.bin',
      '/home/node_modules/.bin',
      '/node_modules/.bin',
      '/home/me/.npm/_npx/6913fdfd1ea7a741/node_modules/.bin',
      '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin',
      '/home/me/.local/bin',
      '/usr/local/bin',
      '/usr/bin',
      '/bin',
    ].join(':');
    const unit = systemdUnit({ ...spec, path: installing });
    expect(unit).toContain('Environment="PATH=/home/me/.local/bin:/usr/local/bin:/usr/bin:/bin"\n');
    expect(unit).not.toContain('node_modules');
    expect(unit).not.toContain('_npx');
    expect(unit).not.toContain('node-gyp-bin');
  });

  it('drops relative and empty entries, which pinning never searches', () => {
    expect(unitSearchPath('.:bin::/usr/bin')).toBe('/usr/bin');
  });

  it('falls back to the system folders when nothing is left', () => {
    expect(unitSearchPath('/tmp/node_modules/.bin')).toBe('/usr/bin:/bin');
  });
});
