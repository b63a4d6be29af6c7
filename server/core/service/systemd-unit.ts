/**
 * The systemd user unit that keeps the gate running (issue 13; seed 000 asks the gate to start at
 * login and survive a reboot): `oracle serve` for one home, restarted when it fails, started with
 * the user's manager (`WantedBy=default.target`; with `loginctl enable-linger` that is at boot).
 * Pure text; the CLI writes it and asks systemctl.
 */
import { isPackageManagerBin } from '../paths/search-path.js';

export const UNIT_NAME = 'oracle.service';

export interface UnitSpec {
  /** Absolute path of the Node binary that runs ORACLE now. */
  readonly node: string;
  /** Absolute path of the built `oracle` entry point. */
  readonly entry: string;
  readonly home: string;
  /**
   * PATH as the installing user has it: the gate pins programs (git, …) from PATH at start. The
   * unit keeps only what pinning searches (see `unitSearchPath`).
   */
  readonly path: string;
  readonly port?: number;
  readonly lan?: boolean;
}

/**
 * One word of a unit's command line or assignment, quoted as systemd.syntax(7) reads it: in double
 * quotes, with `\` and `"` escaped, `%` doubled (specifier expansion) and `$` doubled (variable
 * expansion in Exec lines). A control character cannot be written into a unit and is refused.
 */
export function unitWord(value: string): string {
  // eslint-disable-next-line no-control-regex -- exactly what a unit line cannot hold
  if (/[\u0000-\u001f\u007f]/u.test(value)) throw new TypeError(`\`${JSON.stringify(value)}\` holds a control character and cannot go into a systemd unit`);
  return `"${value.replace(/[\\"]/gu, (c) => `\\${c}`).replace(/%/gu, '%%').replace(/\$/gu, '$$$$')}"`;
}

/**
 * The PATH a unit runs the gate with: the absolute entries of the installing PATH, in order, less a
 * package manager's folders (SPEC §6). `npx oracle service install` runs with npm's
 * `node_modules/.bin` of every parent folder, its `node-gyp-bin` and a transient
 * `~/.npm/_npx/<hash>/node_modules/.bin` in front; pinning skips them, and a unit that kept them
 * would only carry them to every start. Relative entries would name the service's own folder.
 */
export function unitSearchPath(path: string): string {
  const kept = path.split(':').filter((entry) => entry.startsWith('/') && !isPackageManagerBin(entry));
  return kept.length === 0 ? '/usr/bin:/bin' : kept.join(':');
}

export function systemdUnit(spec: UnitSpec): string {
  const args = [spec.node, spec.entry, 'serve', '--home', spec.home, ...(spec.port === undefined ? [] : ['--port', String(spec.port)]), ...(spec.lan === true ? ['--lan'] : [])];
  return [
    '# Written by `oracle service install`; `oracle service uninstall` removes it.',
    '[Unit]',
    'Description=ORACLE permission gate for AI agents',
    // A gate that cannot start (a corrupt file, a port in use) says why and exits non-zero; five
    // such exits in a minute stop the retries, so the journal holds the reason, not a loop.
    'StartLimitIntervalSec=60',
    'StartLimitBurst=5',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${args.map(unitWord).join(' ')}`,
    `Environment=${unitWord(`PATH=${unitSearchPath(spec.path)}`)}`,
    'Restart=on-failure',
    'RestartSec=2',
    // SIGTERM is how the gate stops cleanly: waiting calls are denied ("the gate stopped").
    'KillSignal=SIGTERM',
    'TimeoutStopSec=15',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}
