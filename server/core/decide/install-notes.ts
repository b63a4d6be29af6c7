import { npmCommand } from './npm-commands.js';

/**
 * What a card must say about a package install (issue 12): it reaches the network and runs code
 * the packages bring (npm's preinstall/install/postinstall scripts, a source package's build for
 * pip, build scripts for cargo install) with the user's permissions. Pure: read from the argv.
 */
const SCRIPTS = "runs the packages' own install scripts (preinstall, install, postinstall) with your permissions, and downloads from the registry";
// npm's own aliases are read as the command they run (npm-commands.ts); pnpm, yarn and bun spell these.
const NODE_INSTALLS: ReadonlySet<string> = new Set(['install', 'i', 'add', 'ci', 'update', 'up', 'upgrade', 'rebuild', 'isntall', 'in', 'install-test', 'install-ci-test']);

export function installNote(program: string, argv: readonly string[]): string | undefined {
  const first = argv.find((a) => !a.startsWith('-'));
  switch (program) {
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun':
      // `yarn` alone installs.
      if (program === 'yarn' && first === undefined) return `\`yarn\` ${SCRIPTS}`;
      if (first !== undefined && NODE_INSTALLS.has(program === 'npm' ? npmCommand(first) : first)) return `\`${program} ${first}\` ${SCRIPTS}`;
      if (first === 'exec' || first === 'dlx' || first === 'x') return `\`${program} ${first}\` runs a package's code, downloading it first when it is not installed`;
      return undefined;
    case 'npx':
      // `--yes=false`: npm refuses to download (npm 7+), so only a copy already installed runs.
      if (argv[0] === '--yes=false' && !(argv[1]?.startsWith('-') ?? true)) return undefined;
      if (argv.length === 1 && ['--version', '-v', '--help', '-h'].includes(argv[0] ?? '')) return undefined;
      return "`npx` runs a package's code, downloading it first when it is not installed (`npx --yes=false NAME` never downloads: it runs a copy already on this machine)";
    case 'bunx':
      return `\`${program}\` runs a package's code, downloading it first when it is not installed`;
    case 'pip':
    case 'pip3':
      return first === 'install' ? `\`${program} install\` downloads packages and runs the build code of any source package with your permissions` : undefined;
    case 'python':
    case 'python3':
      return argv[0] === '-m' && (argv[1] === 'pip' || argv[1] === 'pip3') && argv.slice(2).find((a) => !a.startsWith('-')) === 'install' ? '`python -m pip install` downloads packages and runs the build code of any source package with your permissions' : undefined;
    case 'cargo':
      return first === 'install' ? '`cargo install` downloads crates and runs their build scripts with your permissions' : undefined;
    default:
      return undefined;
  }
}
