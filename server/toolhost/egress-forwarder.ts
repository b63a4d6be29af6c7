/**
 * The forwarder inside a network-capable job's sandbox (issue 17): the sandbox has its own network
 * namespace with loopback only, and the gate's per-job egress proxy listens on a Unix socket in the
 * job directory (adapters/agent/egress-proxy.ts). The forwarder is the job's first process:
 *
 * - `run PROGRAM ARGS…` listens on 127.0.0.1 (an ephemeral port of the sandbox's own loopback),
 *   starts the program with HTTPS_PROXY / HTTP_PROXY / ALL_PROXY pointing there, pipes every
 *   connection to the gate's socket, and exits with the program's status;
 * - `connect HOST PORT` opens one tunnel and joins it to stdin/stdout (ssh's ProxyCommand).
 *
 * It holds no policy: the proxy judges every CONNECT, so a job that rewrites this file (it lives in
 * its own directory) only loses its own way out. Plain CommonJS with Node's built-ins alone, since
 * it runs from the job directory with nothing else of ORACLE's mounted.
 */
export const FORWARDER_NAME = '.oracle-egress.cjs';
/** `connect HOST PORT` as one executable, for what takes a command rather than a proxy URL (git://, ssh). */
export const CONNECT_NAME = '.oracle-connect';

/** The connect script for a job: the gate's own node running the forwarder in `connect` mode. */
export function connectScript(node: string, forwarder: string): string {
  const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;
  return `#!/bin/sh\nexec ${quote(node)} ${quote(forwarder)} connect "$1" "$2"\n`;
}
export const SOCKET_ENV = 'ORACLE_EGRESS_SOCKET';

export const FORWARDER_CJS = `'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const socket = process.env.${SOCKET_ENV};
const [mode, ...rest] = process.argv.slice(2);
if (!socket) { process.stderr.write('oracle egress: no proxy socket\\n'); process.exit(70); }
if (mode === 'connect') {
  const [host, port] = rest;
  const up = net.connect({ path: socket, allowHalfOpen: true });
  let head = Buffer.alloc(0);
  up.on('error', (e) => { process.stderr.write('oracle egress: ' + e.message + '\\n'); process.exit(1); });
  up.write('CONNECT ' + (host.includes(':') ? '[' + host + ']' : host) + ':' + port + ' HTTP/1.1\\r\\nHost: ' + host + ':' + port + '\\r\\n\\r\\n');
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\\r\\n\\r\\n');
    if (end < 0) return;
    up.off('data', onData);
    const status = head.subarray(0, end).toString('latin1').split('\\r\\n')[0];
    if (!/^HTTP\\/1\\.[01] 200 /.test(status)) { process.stderr.write('oracle egress: ' + head.subarray(end + 4).toString('utf8').trim() + '\\n'); process.exit(1); }
    const more = head.subarray(end + 4);
    if (more.length > 0) process.stdout.write(more);
    process.stdin.pipe(up);
    up.pipe(process.stdout);
    up.on('close', () => process.exit(0));
  };
  up.on('data', onData);
} else if (mode === 'run') {
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const up = net.connect({ path: socket, allowHalfOpen: true });
    client.on('error', () => up.destroy());
    up.on('error', () => client.destroy());
    client.pipe(up);
    up.pipe(client);
  });
  server.listen(0, '127.0.0.1', () => {
    const proxy = 'http://127.0.0.1:' + server.address().port;
    const connect = require('node:path').join(__dirname, '${CONNECT_NAME}');
    const env = { ...process.env, HTTPS_PROXY: proxy, https_proxy: proxy, HTTP_PROXY: proxy, http_proxy: proxy, ALL_PROXY: proxy, all_proxy: proxy, NO_PROXY: '', no_proxy: '',
      GIT_PROXY_COMMAND: connect, GIT_SSH_COMMAND: "ssh -oBatchMode=yes -oProxyCommand='" + connect + " %h %p'" };
    const [program, ...args] = rest;
    const child = spawn(program, args, { stdio: 'inherit', env });
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
    child.on('error', (e) => { process.stderr.write('oracle egress: ' + program + ': ' + e.message + '\\n'); process.exit(127); });
    child.on('exit', (code, signal) => { server.close(); process.exit(code === null ? 128 + (require('node:os').constants.signals[signal] || 0) : code); });
  });
} else {
  process.stderr.write('oracle egress: run PROGRAM ARGS | connect HOST PORT\\n');
  process.exit(64);
}
`;
