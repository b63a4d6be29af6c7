import { spawn } from 'node:child_process';

/**
 * Opens a URL in the person's browser (the desktop screen's one-time login link): `xdg-open` on
 * Linux, `open` on macOS, `explorer` on Windows; argv only, never a shell. Resolves with why it
 * could not, or undefined once the opener started.
 */
export function openUrl(url: string, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  const file = platform === 'darwin' ? 'open' : platform === 'win32' ? 'explorer.exe' : 'xdg-open';
  return new Promise((resolve) => {
    const child = spawn(file, [url], { stdio: 'ignore', detached: true, windowsHide: true });
    child.once('error', (e) => {
      resolve(`${file} could not start: ${e.message}`);
    });
    child.once('spawn', () => {
      child.unref();
      resolve(undefined);
    });
  });
}
