import { execFile } from 'node:child_process';

/**
 * `systemctl --user` as `oracle service` needs it: one command, its exit status and output. A
 * missing systemctl or a manager that does not answer comes back as a failure with the reason,
 * never as a throw.
 */
export interface Systemctl {
  (args: readonly string[]): Promise<{ readonly code: number; readonly out: string }>;
}

export const userSystemctl: Systemctl = (args) =>
  new Promise((resolve) => {
    execFile('systemctl', ['--user', ...args], { timeout: 30_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 127;
      resolve({ code, out: `${stdout}${stderr}${error !== null && typeof error.code !== 'number' ? error.message : ''}`.trim() });
    });
  });
