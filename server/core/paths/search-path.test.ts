import { describe, expect, it } from 'vitest';
import { isPackageManagerBin } from './search-path.js';

describe('the PATH entries a package manager adds', () => {
  it.each([
    '/tmp/h-new/node_modules/.bin',
    '/tmp/node_modules/.bin',
    '/node_modules/.bin',
    '/root/.npm/_npx/6913fdfd1ea7a741/node_modules/.bin',
    '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin',
    '/usr/lib/node_modules/npm/bin/node-gyp-bin',
    '/tmp/node_modules/.bin/',
    '/tmp/node_modules/./.bin',
    'C:\\Users\\me\\app\\node_modules\\.bin',
    'C:\\Users\\me\\app\\Node_Modules\\.BIN\\',
  ])('%s is one', (entry) => {
    expect(isPackageManagerBin(entry)).toBe(true);
  });

  it.each(['/usr/bin', '/usr/local/bin', '/home/me/.nvm/versions/node/v20.11.0/bin', '/opt/node_modules', '/home/me/.bin', '/home/me/node_modules/.bin/x', 'C:\\Program Files\\Git\\cmd'])('%s is not', (entry) => {
    expect(isPackageManagerBin(entry)).toBe(false);
  });
});
