/**
 * A child's environment, built from nothing (SPEC §6): never the gate's own environment, so a
 * secret the gate holds in its environment never reaches a child. Named secrets are added only
 * for tools that declare secret.read.
 */
export function childEnvironment(jobDir: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: jobDir,
    TMPDIR: `${jobDir}/tmp`,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    ...extra,
  };
}
