import { startServer } from '../main.js';
import { modeBanner } from './policy-check.js';

export interface ServeFlags {
  readonly home: string | undefined;
  readonly policy: string | undefined;
  readonly port: string | undefined;
  readonly lan: boolean;
  /** Web Push services besides the browser vendors' (a self-hosted one), as origins. */
  readonly pushOrigins?: readonly string[];
}

/** `oracle serve`: runs until SIGINT/SIGTERM. */
export async function runServe(flags: ServeFlags): Promise<number> {
  const port = flags.port === undefined ? 8443 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`oracle: --port must be an integer from 0 to 65535, not \`${flags.port ?? ''}\`\n`);
    return 2;
  }
  const origins: string[] = [];
  for (const given of flags.pushOrigins ?? []) {
    let origin: string;
    try {
      origin = new URL(given).origin;
    } catch {
      origin = 'null';
    }
    if (!origin.startsWith('https://')) {
      process.stderr.write(`oracle: --push-origin must be an https origin such as https://push.example.org, not \`${given}\`\n`);
      return 2;
    }
    origins.push(origin);
  }
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer({
      home: flags.home,
      policy: flags.policy,
      port,
      lan: flags.lan,
      push: { origins },
      report: (line) => {
        process.stderr.write(`oracle: ${line}\n`);
      },
    });
  } catch (e) {
    // One line that names the file or the port and what to do, then out: a gate that did not
    // start must not look alive to a supervisor or to a hook (issue 14).
    process.stderr.write(`oracle: cannot start: ${startFailure(e, port)}\n`);
    setTimeout(() => process.exit(1), 200).unref();
    return 1;
  }
  const { gate } = running.runtime;
  // The signals are taken before the banner says the gate is up: a supervisor or a script that
  // signals as soon as it reads the banner must never meet the default action (exit) instead.
  // SIGHUP: read the policy again, as `oracle policy reload` does (issue 16).
  process.on('SIGHUP', () => {
    void running.runtime.reloadPolicy('signal').then(
      (r) => {
        process.stderr.write(r.ok ? `oracle: policy reloaded (${r.to ?? 'none'})\n` : `oracle: the policy ${r.file} has errors; keeping the policy in force (${r.kept ?? 'none'}): ${r.errors.map((e) => `line ${String(e.line)}: ${e.message}`).join('; ')}\n`);
      },
      (e: unknown) => {
        process.stderr.write(`oracle: the policy reload failed: ${e instanceof Error ? e.message : String(e)} (the health endpoint says which policy is in force)\n`);
      },
    );
  });
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  const banner = modeBanner(gate);
  if (banner !== undefined) process.stderr.write(`oracle: ${banner}\n`);
  for (const w of gate.warnings) process.stderr.write(`oracle: warning: ${w}\n`);
  process.stdout.write(
    [
      `ORACLE gate listening on ${flags.lan ? `all interfaces, port ${String(running.listening.port)} (--lan, this launch only)` : `${running.url} (loopback only)`}`,
      `  mode:    ${running.runtime.mode()}`,
      `  policy:  ${gate.policyFile}`,
      `  digest:  ${gate.digest ?? 'none'}`,
      `  home:    ${gate.home}`,
      `  TLS key pin (SPKI SHA-256, base64): ${running.spkiSha256}`,
      `  children: ${running.runtime.toolhost.sandbox.kind === 'bubblewrap' ? `bubblewrap (${running.runtime.toolhost.sandbox.detail})` : `WITHOUT isolation: ${running.runtime.toolhost.sandbox.reason}`}`,
      `  secrets: ${running.runtime.toolhost.env.secretsReason}`,
      `  health:  ${running.url}/api/v1/health`,
      `  desktop: ${running.loginUrl}   (open on this machine; the code works once)`,
      `  pair a phone: oracle pair${flags.lan ? '' : '   (phones need --lan)'}`,
      '',
    ].join('\n'),
  );
  await stopped;
  // A stopping gate ends promptly (waiting callers denied, sockets closed, lock released); if any
  // handle still held the process after that, it would look alive to a supervisor and to hooks.
  setTimeout(() => process.exit(0), 2000).unref();
  await running.close();
  return 0;
}

function startFailure(e: unknown, port: number): string {
  const error = e as NodeJS.ErrnoException;
  if (error.code === 'EADDRINUSE') return `port ${String(port)} is in use (another \`oracle serve\`?); stop it, or start with \`--port N\``;
  if (error.code === 'EACCES' && error.syscall === 'listen') return `port ${String(port)} needs privileges this user lacks; start with \`--port N\` above 1023`;
  return e instanceof Error ? e.message : 'unknown error';
}
