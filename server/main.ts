import { hostname, networkInterfaces } from 'node:os';
import { dirname, join } from 'node:path';
import { advertise, type Advertised } from './adapters/mdns.js';
import { getConnInfo } from '@hono/node-server/conninfo';
import { DesktopSessions } from './http/desktop-sessions.js';
import { ensureDir, removeFile, writePrivateFile } from './adapters/files.js';
import { EventHub, visibleTo } from './app/events.js';
import { Reach } from './app/reach.js';
import { ecdsaSign, importTlsSigner } from '../shared/pairing/protocol.js';
import { createPairingService } from './http/pairing-service.js';
import { createApp } from './http/app.js';
import { gateCallers, reportCredentialFailures } from './serve/callers.js';
import { hookAnswers } from './serve/hook-answers.js';
import { localRequests } from './serve/local-requests.js';
import { listenLocal, SOCKET_NAME } from './adapters/local-socket.js';
import { ensureTlsMaterial } from './adapters/certs.js';
import { CredentialStore } from './adapters/credentials-store.js';
import { isLoopbackAddress, listenHttps, type Listening } from './adapters/https-listener.js';
import { openRuntime, type Runtime } from './app/runtime.js';
import { loadAssets, pwaDirectory } from './adapters/pwa-assets.js';
import { recentAuditRecords, verifyAuditHome } from './adapters/audit/read-log.js';
import { undoTarget } from './toolhost/undo-store.js';
import { allowedView } from './app/allowed-view.js';
import { PushStore } from './adapters/push/push-store.js';
import { makeVapidKeys, webPushSender } from './adapters/push/web-push-sender.js';
import { startPushNotifier } from './app/push-notifier.js';
import { pushNotifierDeps } from './serve/push.js';
import { PolicyCandidatesStore } from './adapters/policy-candidates-store.js';
import { policyCandidates } from './app/policy-candidates.js';
import { secretsDesk } from './serve/secrets-desk.js';
import { parsePolicyText, writablePolicyFile } from './app/gate-policy.js';
import { terminalDesk } from './app/terminal-desk.js';
import { attachTerminals } from './adapters/terminal/attach-server.js';

export interface ServeOptions {
  readonly home?: string | undefined;
  readonly policy?: string | undefined;
  readonly port: number;
  /** Listen on the LAN and advertise over mDNS, for this launch only (SPEC §9). */
  readonly lan?: boolean;
  /** The Claude Code hook's time budget per call (default HOOK_BUDGET_MS, inside its 120 s timeout). */
  readonly hookBudgetMs?: number;
  /** Where mDNS and certificate notes go. */
  readonly report?: (line: string) => void;
  /** Web Push (issue 15): push services besides the browser vendors' (`--push-origin`), a CA to trust for them, the VAPID contact. */
  readonly push?: { readonly origins?: readonly string[]; readonly ca?: string; readonly subject?: string };
}

/** The VAPID contact (RFC 8292 `sub`) when none is given: push services want a mailto: or https: URL. */
const PUSH_SUBJECT = 'mailto:oracle@localhost';

/** This machine's LAN addresses, for the certificate's SANs. */
function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((i) => i !== undefined && !i.internal && (i.family === 'IPv4' || !i.address.startsWith('fe80')))
    .map((i) => i?.address ?? '')
    .filter((a) => a !== '');
}

export interface Running {
  readonly runtime: Runtime;
  readonly credentials: CredentialStore;
  readonly listening: Listening;
  readonly url: string;
  readonly spkiSha256: string;
  /** The one-time desktop login link printed at start. */
  readonly loginUrl: string;
  readonly desktop: DesktopSessions;
  readonly pairing: ReturnType<typeof createPairingService>;
  /** Web Push to the paired phones (issue 15). */
  readonly push: { readonly vapidPublicKey: string; idle(): Promise<void> };
  close(): Promise<void>;
}

/**
 * The composition root (SPEC §2): the runtime (policy, toolhost, audit, approvals), the
 * credentials, the TLS material, createApp with its dependencies, HTTPS on loopback.
 */
export async function startServer(options: ServeOptions): Promise<Running> {
  const hub = new EventHub();
  // Who can see a card: the screens the listener below serves and the phones push reaches.
  const reach = new Reach();
  const runtime = await openRuntime({ home: options.home, policy: options.policy, actor: 'server', events: hub, asked: (tier) => reach.asked(tier) });
  try {
    return await serveRuntime(runtime, hub, reach, options);
  } catch (e) {
    // Nothing half-started keeps the home: its lock, watchers and log are released.
    await runtime.close().catch(() => undefined);
    throw e;
  }
}

async function serveRuntime(runtime: Runtime, hub: EventHub, reach: Reach, options: ServeOptions): Promise<Running> {
  const credentials = CredentialStore.open(join(runtime.gate.home, 'data'));
  // A revoke is audited wherever it was made (SPEC §9: devices revoked one by one, on the record).
  const auditRevoke = (id: string, kind: string, by: string): void => {
    runtime.audit.append({ kind: 'pairing', ts: new Date().toISOString(), actor: by, outcome: 'revoked', detail: { credential: id, kind } }).catch(() => undefined);
  };
  credentials.revokedElsewhere = (r) => {
    auditRevoke(r.id, r.kind, 'cli');
  };
  const report = options.report ?? (() => undefined);
  const push = await PushStore.open(join(runtime.gate.home, 'data'), makeVapidKeys);
  // A device revoked while the gate was down keeps no subscription.
  for (const [id] of push.entries()) if (!credentials.active(id)) push.remove(id);
  const candidates = policyCandidates({
    store: PolicyCandidatesStore.open(join(runtime.gate.home, 'data')),
    current: () => runtime.gate,
    parse: (text) => parsePolicyText(text),
    // A candidate written to the home's own file is read from there from now on (it shadows the built-in default).
    write: (text) => {
      const file = writablePolicyFile(options.policy, runtime.gate.home);
      ensureDir(dirname(file));
      writePrivateFile(file, text);
    },
    reload: (by) => runtime.reloadPolicy(by),
    audit: (body) => runtime.audit.append(body),
    events: hub,
    now: () => new Date(),
  });
  const pushing = pushNotifierDeps({ push, credentials, hub, runtime, report, send: webPushSender(push.vapid, { subject: options.push?.subject ?? PUSH_SUBJECT, ca: options.push?.ca }) });
  const notifier = startPushNotifier(pushing);
  reach.notifyVia(() => pushing.recipients().length);
  const lan = options.lan === true;
  const host = `${hostname().split('.')[0] ?? 'oracle'}.local`;
  // The same key whatever the names: a re-issue for new addresses never moves the pin.
  const tls = await ensureTlsMaterial(runtime.gate.home, lan ? { dns: ['localhost', host], ips: ['127.0.0.1', '::1', ...lanAddresses()] } : { dns: ['localhost'], ips: ['127.0.0.1', '::1'] });
  const desktop = new DesktopSessions();
  const signer = await importTlsSigner(globalThis.crypto.subtle, tls.key);
  // Filled in once the listener knows its port.
  const origins: string[] = [];
  const pairing = createPairingService({
    core: { subtle: globalThis.crypto.subtle, randomBytes: (n) => globalThis.crypto.getRandomValues(new Uint8Array(n)), now: () => Date.now(), signer },
    origins: () => origins,
    issueDevice: async (name, jwk) => {
      const issued = await credentials.issue('dev', name, { profile: 'phone', public_key_jwk: jwk });
      // The desktop's device list follows at once.
      hub.publish('device.paired', { device: issued.id, name }, 'desktop');
      return issued;
    },
    audit: (body) => runtime.audit.append(body),
  });
  // Claude Code's hook, answered here; the http hook's side of a connection is the listener's port.
  const hooks = hookAnswers(runtime, { hookBudgetMs: options.hookBudgetMs, ourPort: () => listening.port });
  const callers = gateCallers(credentials, desktop);
  const stopFailureReports = reportCredentialFailures(credentials, (body) => runtime.audit.append(body));
  const terminals = terminalDesk({
    terminals: runtime.toolhost.env.terminals,
    gate: () => runtime.gate.context.gate,
    mode: () => runtime.mode(),
    redact: runtime.toolhost.env.redact,
    audit: (body) => runtime.audit.append(body),
    now: () => new Date(),
  });
  const app = createApp({
    gateStatus: () => {
      const status = runtime.status();
      return { mode: status.mode, policyDigest: runtime.gate.digest, audit: status.audit, policyProblem: runtime.policyProblem };
    },
    spkiSha256: tls.spkiSha256,
    ca: { pem: tls.caCert, fingerprint256: tls.caFingerprint },
    tlsSign: (data) => ecdsaSign(globalThis.crypto.subtle, signer.key, new Uint8Array(data)),
    spki: signer.spki,
    now: () => Date.now(),
    isLoopback: (c) => {
      return isLoopbackAddress(getConnInfo(c).remote.address);
    },
    desktop: { exchange: (code) => desktop.exchange(code) },
    pairing,
    clientAddress: (c) => getConnInfo(c).remote.address,
    clientPeer: (c) => {
      const bindings = c.env as { incoming?: { socket?: object } } | undefined;
      const port = getConnInfo(c).remote.port;
      const connection = bindings?.incoming?.socket;
      return port === undefined || connection === undefined ? undefined : { port, connection };
    },
    events: {
      subscribe: (profile, lastId, send) => {
        const sub = hub.subscribe(lastId, (event) => {
          if (visibleTo(event, profile)) send(event);
        });
        const gone = reach.opened(profile);
        return {
          replay: sub.replay.filter((e) => visibleTo(e, profile)),
          close: () => {
            gone();
            sub.close();
          },
        };
      },
      active: (id) => credentials.active(id),
    },
    control: {
      pending: () => runtime.desk.list(),
      answer: (id, verdict, remember) => runtime.desk.answer(id, verdict, remember),
      halt: (reason, by) => runtime.halt(reason, by),
      resume: (by) => runtime.resume(by),
      mode: () => runtime.status().mode,
      haltedBy: () => runtime.haltedBy(),
      // The tray reads the queue with the desktop's local token; a screen uses its session cookie (and its stream).
      queueRead: (caller) => {
        if (caller.kind === 'desktop' && caller.via === 'token') reach.trayRead();
      },
    },
    devices: {
      publicKey: (id) => credentials.publicKey(id),
      advanceCounter: (id, counter) => credentials.advanceCounter(id, counter),
      list: () => credentials.list('dev').map((d) => ({ id: d.id, name: d.name, profile: d.profile ?? 'phone', created_at: d.created_at, revoked_at: d.revoked_at })),
      revoke: (id) => {
        const revoked = credentials.revoke(id);
        if (revoked) auditRevoke(id, 'dev', 'desktop');
        // Its notifications stop with it, and its open stream ends now (it wakes on this event,
        // finds its credential revoked and closes), not at the next heartbeat.
        if (revoked) {
          push.remove(id);
          hub.publish('device.revoked', { device: id });
        }
        return revoked;
      },
    },
    policyCandidates: candidates,
    terminals,
    push: {
      vapidPublicKey: push.vapid.publicKey,
      extraOrigins: options.push?.origins ?? [],
      subscribed: (id) => push.get(id) !== undefined,
      subscribe: (id, s) => {
        push.set(id, { ...s, created_at: new Date().toISOString() });
      },
      unsubscribe: (id) => {
        push.remove(id);
      },
    },
    callers,
    assets: loadAssets(pwaDirectory(import.meta.dirname)),
    desktopViews: {
      undoList: (limit) => {
        const all = runtime.toolhost.env.undo.list();
        const undo = all
          .slice(-limit)
          .reverse()
          .map((r) => ({ id: r.id, kind: r.kind, target: undoTarget(r), created_at: r.created_at, applied_at: runtime.toolhost.env.undo.appliedAt(r.id) ?? null }));
        return { undo, total: all.length };
      },
      undo: (id) => runtime.undo(id),
      auditRecent: (limit) => recentAuditRecords(runtime.gate.home, limit),
      // The checkpoint trails the log by up to one interval: wait for it, so a verify of a
      // running gate's log does not report its last records as unsigned.
      auditVerify: async () => {
        await runtime.audit.signed();
        return verifyAuditHome(runtime.gate.home);
      },
      loginCode: () => desktop.mintCode(),
      remembered: () =>
        runtime.desk
          .rules()
          .filter((r) => Date.parse(r.expires_at) > Date.now())
          .map((r) => ({ id: r.id, tool: r.tool, preview: r.preview, project: r.project, session: r.session, agent: r.agent, created_by: r.created_by, created_at: r.created_at, expires_at: r.expires_at, uses: r.uses ?? 0 })),
      forget: (id) => runtime.desk.forget(id, 'desktop'),
      reloadPolicy: (by) => runtime.reloadPolicy(by),
      secrets: secretsDesk(runtime.toolhost.env.secrets, runtime.toolhost.env.secretsReason, (body) => runtime.audit.append(body)),
    },
    actions: {
      submit: (action, waitMs, agent, signal) => runtime.submit(action, waitMs, agent, signal),
      continueAction: (approvalId, waitMs, agent, signal) => runtime.continueAction(approvalId, waitMs, agent, signal),
      taint: (session, read) => {
        runtime.taint(session, read);
      },
      claudeCodeHook: (payload, agent, client) => hooks.claudeCodeHook(payload, agent, client),
      allowed: (agent, session) => allowedView(runtime.gate.context.gate.policy, runtime.toolhost.env.secrets, agent, session === undefined ? undefined : { id: session, state: runtime.taintOf(session) }),
      registerClient: (client, session) => {
        hooks.registerClient(client, session)();
      },
    },
  });
  const listening = await listenHttps(app, { hostname: lan ? '0.0.0.0' : '127.0.0.1', port: options.port, key: tls.key, cert: tls.cert });
  const url = `https://127.0.0.1:${String(listening.port)}`;
  const attach = attachTerminals(listening.server, { callers, terminals: runtime.toolhost.env.terminals, origin: () => url });
  origins.push(...(lan ? [`https://${host}:${String(listening.port)}`, ...lanAddresses().filter((a) => !a.includes(':')).map((a) => `https://${a}:${String(listening.port)}`)] : []), url);
  // `oracle serve` says it when the log stops taking records and when it takes them again.
  const unlistenAudit = runtime.audit.onAvailability((state) => {
    report(
      state === undefined
        ? 'the audit log takes records again (the repair is in the log); actions run again'
        : `DEGRADED: the audit log cannot be written (${state.reason}); every action is refused until it can, retrying every second`,
    );
  });
  // Where `oracle pair` finds this gate and signs in as the desktop.
  const localFile = join(runtime.gate.home, 'data', 'server.json');
  // The hook's local channel: agent credentials only, the same check as the HTTPS API.
  const channel = await listenLocal(join(runtime.gate.home, 'data', SOCKET_NAME), localRequests({ callers, runtime, hooks })).catch((e: unknown) => {
    // Without the socket the hook's clients use the HTTPS API: slower, never less checked.
    report(`the local channel could not be opened (${e instanceof Error ? e.message : 'unknown'}); hooks use HTTPS`);
    return undefined;
  });
  writePrivateFile(localFile, JSON.stringify({ url, pid: process.pid, token: desktop.localToken, ...(channel === undefined ? {} : { socket: channel.path }) }));
  const mdns: Advertised | undefined = lan ? advertise({ name: `ORACLE on ${host.replace(/\.local$/u, '')}`, host, port: listening.port, keyHint: tls.spkiSha256Hex.slice(0, 16), report }) : undefined;
  return {
    loginUrl: `${url}/login?code=${desktop.mintCode()}`,
    push: { vapidPublicKey: push.vapid.publicKey, idle: () => notifier.idle() },
    desktop,
    pairing,
    runtime,
    credentials,
    listening,
    url,
    spkiSha256: tls.spkiSha256,
    async close() {
      notifier.close();
      unlistenAudit();
      stopFailureReports();
      removeFile(localFile);
      // Answer everyone still waiting first, so their responses go out before the sockets close.
      runtime.stopWaiting();
      await new Promise((r) => setImmediate(r));
      await mdns?.stop();
      await channel?.close();
      attach.close();
      await listening.close();
      await pairing.flush();
      await runtime.close();
    },
  };
}
