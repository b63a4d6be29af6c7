import { LitElement, html, nothing, css } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { SignedCard } from '../../../shared/approval-card.js';
import type { DeviceView } from '../../../shared/device-view.js';
import { ApiError, json, request } from '../lib/api.js';
import { deciderName, displayPin, haltWords, verifyCard, when, type ApprovalsReply } from '../lib/cards.js';
import { sentenceOf } from '../lib/sentence.js';
import { fixedBytes, fromBase64Url, toBase64Url } from '../../../shared/pairing/bytes.js';
import { ecdsaVerify, sha256 } from '../../../shared/pairing/protocol.js';
import { attestInput } from '../../../shared/attest.js';
import { openLive } from '../lib/live.js';
import type { Answer, CardCheck } from '../ui/approval-card.js';
import { base } from '../ui/styles.js';
import { Places, Settle } from '../ui/settle.js';
import '../ui/approval-card.js';
import '../ui/halt-button.js';
import '../ui/recent-decisions.js';
import './pairing-panel.js';
import './ca-panel.js';
import './audit-panel.js';
import './remembered-panel.js';
import './candidates-panel.js';
import './terminals-panel.js';
import type { OracleTerminalsPanel } from './terminals-panel.js';
import type { OracleCandidatesPanel } from './candidates-panel.js';
import type { OracleRememberedPanel } from './remembered-panel.js';
import type { OracleAuditPanel } from './audit-panel.js';

interface Health {
  readonly mode: string;
  readonly spki_sha256: string;
  readonly policy_digest: string | null;
  readonly ca_sha256: string;
  readonly audit?: { readonly writable: boolean; readonly reason?: string; readonly since?: string };
  /** A reload the gate refused: the file has errors, the old policy is in force. */
  readonly policy_refused?: { readonly file: string; readonly at: string; readonly errors: readonly { readonly line: number; readonly message: string }[] };
}

interface UndoRow {
  readonly id: string;
  readonly kind: string;
  readonly target: string;
  readonly created_at: string;
  readonly applied_at: string | null;
}

interface EgressRow {
  readonly url: string;
  readonly address: string | null;
  readonly status: number | null;
}

/**
 * The desktop screen (SPEC §10): the person at this machine holds the dangerous decisions. Every
 * pending approval including T3 (typed phrase), HALT and resume, pairing, the CA, undo, egress,
 * devices with revoke, the audit log with its verification, the policy digest and the mode.
 */
export class OracleDesktop extends LitElement {
  static override properties = {
    health: { state: true },
    signedIn: { state: true },
    cards: { state: true },
    pendingTotal: { state: true },
    checks: { state: true },
    recent: { state: true },
    devices: { state: true },
    undo: { state: true },
    undoTotal: { state: true },
    egress: { state: true },
    busy: { state: true },
    halting: { state: true },
    problems: { state: true },
    notice: { state: true },
    live: { state: true },
    keyProblem: { state: true },
    down: { state: true },
    haltInfo: { state: true },
    revoking: { state: true },
  };
  static override styles = [
    base,
    css`
      :host {
        max-width: 72rem;
        margin: 0 auto;
        padding: 0 1rem 2rem;
      }
      header {
        display: flex;
        flex-wrap: wrap;
        justify-content: space-between;
        align-items: center;
        gap: 1rem;
        padding: 0.75rem 0;
      }
      .grid {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(min(22rem, 100%), 1fr));
        gap: 1rem;
        align-items: start;
      }
      .mode {
        font-weight: 700;
      }
      oracle-audit-panel {
        grid-column: 1 / -1;
      }
      .queue {
        margin: 0 0 1.5rem;
      }
      .banner.down {
        background: var(--danger);
        color: #fff;
        border-radius: 8px;
        padding: 0.75rem 1rem;
      }
      .banner.down code {
        color: #fff;
      }
      .banner.refused {
        border: 3px solid var(--danger);
        border-radius: 8px;
        padding: 0.5rem 1rem;
        margin: 0.5rem 0;
      }
      details.panel > summary {
        cursor: pointer;
        min-height: 44px;
      }
      details.panel > summary h2 {
        display: inline;
        margin: 0;
      }
      .mode.halted {
        color: var(--danger);
      }
      .mode.read-only,
      .mode.degraded {
        color: var(--warn);
      }
      .controls {
        display: flex;
        gap: 0.5rem;
        align-items: center;
        min-width: 16rem;
      }
      .controls oracle-halt {
        flex: 1;
      }
    `,
  ];
  declare health: Health | undefined;
  declare signedIn: boolean | undefined;
  declare cards: readonly SignedCard[];
  declare pendingTotal: number;
  declare checks: Readonly<Record<string, CardCheck>>;
  declare recent: readonly SignedCard[];
  declare devices: readonly DeviceView[];
  declare undo: readonly UndoRow[];
  /** How many undoable actions there are in all; the screen lists the newest. */
  declare undoTotal: number;
  declare egress: readonly EgressRow[];
  declare busy: boolean;
  /** HALT's own in-flight flag: another pending request never disables the emergency stop. */
  declare halting: boolean;
  declare problems: Readonly<Record<string, string>>;
  declare notice: string;
  declare live: boolean;
  declare keyProblem: string;
  /** The gate stopped answering (its stream dropped); cleared when it is back. */
  declare down: boolean;
  /** The device whose revoke waits for its confirmation. */
  declare revoking: string | undefined;
  /** The HALT in force, when one is: who, when and why. */
  declare haltInfo: ApprovalsReply['halt'];
  /** Cards that moved to where another one was (the list closed up under the pointer): their buttons wait a moment (settle.ts). */
  private readonly settle = new Settle(() => {
    this.requestUpdate();
  });
  private readonly places = new Places();
  private serverKey: CryptoKey | undefined;
  private stream: { close: () => void } | undefined;
  /** Refreshes overlap (every event starts one): only the newest may write the screen. */
  private generation = 0;
  private auditTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.health = undefined;
    this.signedIn = undefined;
    this.cards = [];
    this.pendingTotal = 0;
    this.checks = {};
    this.recent = [];
    this.devices = [];
    this.undo = [];
    this.undoTotal = 0;
    this.egress = [];
    this.busy = false;
    this.halting = false;
    this.problems = {};
    this.notice = '';
    this.live = false;
    this.keyProblem = '';
    this.down = false;
    this.revoking = undefined;
    this.haltInfo = undefined;
  }

  /** A card gone from the list moves the ones below it up, where the pointer may be waiting to click. */
  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (!changed.has('cards')) return;
    for (const id of this.places.next(this.cards.map((c) => c.approval_id), Date.now())) this.settle.start(id);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.start();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.settle.stop();
    this.stream?.close();
  }

  /**
   * The key that signs cards: the server's TLS key as /attest presents it, with the nonce signature
   * verified and its hash equal to the pin health reports. On loopback this is a consistency check
   * (both answers come from this server), not the phone's TOFU pin. Retried by every refresh until
   * it holds; meanwhile cards say their key is unavailable and offer nothing.
   */
  private async loadKey(health: Health): Promise<void> {
    const subtle = globalThis.crypto.subtle;
    const nonce = toBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(18)));
    const attest = (await request<{ spki: string; sig: string }>(`/api/v1/attest?nonce=${nonce}`)).body;
    const der = fromBase64Url(attest.spki);
    const sig = fixedBytes(attest.sig, 64);
    if (der === undefined || sig === undefined || displayPin(toBase64Url(await sha256(subtle, der))) !== health.spki_sha256) throw new ApiError(0, 'KEY_MISMATCH', 'the server key does not match its own pin');
    const key = await subtle.importKey('spki', der, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    if (!(await ecdsaVerify(subtle, key, sig, attestInput(nonce)))) throw new ApiError(0, 'KEY_MISMATCH', 'the server did not sign the nonce with its key');
    this.serverKey = key;
  }

  private async start(): Promise<void> {
    await this.refresh();
    if (this.signedIn !== true) return;
    this.stream = openLive({
      headers: {},
      onMessage: (m) => {
        if (m.type === 'egress') this.egress = [{ url: String(m.data['url']), address: typeof m.data['address'] === 'string' ? m.data['address'] : null, status: typeof m.data['status'] === 'number' ? m.data['status'] : null }, ...this.egress].slice(0, 20);
        // A terminal's output is news for its panel only: the rest of the screen stays as it is.
        if (m.type === 'terminal') void this.renderRoot.querySelector<OracleTerminalsPanel>('oracle-terminals-panel')?.load(m.data['what'] === 'output' ? String(m.data['name']) : undefined);
        else if (m.type !== 'heartbeat') void this.refresh();
      },
      onState: (live) => {
        // A stream that was up and dropped: the gate is down (or restarting) until it is back.
        if (!live && this.live) this.down = true;
        if (live) this.down = false;
        this.live = live;
        // Whatever happened while the stream was down is read again.
        if (live) void this.refresh();
      },
      onRefused: () => {
        this.signedIn = false;
      },
    });
  }

  private async refresh(): Promise<void> {
    const generation = ++this.generation;
    try {
      const [health, approvals, devices, undo] = await Promise.all([
        request<Health>('/api/v1/health'),
        request<ApprovalsReply>('/api/v1/approvals'),
        request<{ devices: DeviceView[] }>('/api/v1/devices'),
        request<{ undo: UndoRow[]; total: number }>('/api/v1/desk/undo'),
      ]);
      if (this.serverKey === undefined) {
        try {
          await this.loadKey(health.body);
          this.keyProblem = '';
        } catch (e) {
          // Without the key no card verifies, so none is offered; the rest of the screen works.
          this.keyProblem = e instanceof ApiError ? `${e.code}: ${e.message}` : 'the key check failed';
        }
      }
      const key = this.serverKey;
      const checks: Record<string, CardCheck> = {};
      for (const card of approvals.body.approvals) checks[card.approval_id] = key === undefined ? 'key-unavailable' : (await verifyCard(key, card)) ? 'verified' : 'bad-signature';
      if (generation !== this.generation) return;
      this.signedIn = true;
      this.health = health.body;
      this.recent = approvals.body.recent;
      this.devices = devices.body.devices;
      this.undo = undo.body.undo;
      this.undoTotal = undo.body.total;
      this.checks = checks;
      this.cards = approvals.body.approvals;
      this.haltInfo = approvals.body.halt;
      this.pendingTotal = approvals.body.pending_total ?? approvals.body.approvals.length;
      void this.renderRoot.querySelector<OracleRememberedPanel>('oracle-remembered-panel')?.load();
      void this.renderRoot.querySelector<OracleCandidatesPanel>('oracle-candidates-panel')?.load();
      this.auditSoon();
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) this.signedIn = false;
      else this.notice = e instanceof Error ? e.message : 'refresh failed';
    }
  }

  /** Runs one desktop change and reports its outcome in words; the screen refreshes after. */
  private async act(what: string, path: string, body: unknown): Promise<boolean> {
    const halt = path === '/api/v1/halt';
    if (halt) this.halting = true;
    else this.busy = true;
    try {
      await request(path, json('POST', body));
      this.notice = `${what}: done.`;
      return true;
    } catch (e) {
      this.notice = e instanceof ApiError ? `${what} failed: ${e.code}: ${e.message}` : `${what} failed`;
      return false;
    } finally {
      if (halt) this.halting = false;
      else this.busy = false;
      await this.refresh();
    }
  }

  /** The newest audit records follow what happens, at most once a second (verification stays on demand). */
  private auditSoon(): void {
    if (this.auditTimer !== undefined) return;
    this.auditTimer = setTimeout(() => {
      this.auditTimer = undefined;
      void this.renderRoot.querySelector<OracleAuditPanel>('oracle-audit-panel')?.load(false);
    }, 1000);
  }

  private async answer(card: SignedCard, a: Answer): Promise<void> {
    this.busy = true;
    try {
      await request(`/api/v1/approvals/${encodeURIComponent(card.approval_id)}/${a.verdict}`, json('POST', { nonce: card.nonce, arg_hash: card.arg_hash, ...(a.message === undefined ? {} : { message: a.message }), ...(a.phrase === undefined ? {} : { phrase: a.phrase }), ...(a.remember === undefined ? {} : { remember_seconds: a.remember.seconds, remember_scope: a.remember.scope }) }));
      this.problems = { ...this.problems, [card.approval_id]: '' };
      const what = sentenceOf(card);
      this.notice = `${a.verdict === 'approve' ? 'Approved' : 'Denied'}: ${what.verb} ${what.object}.`;
    } catch (e) {
      this.problems = { ...this.problems, [card.approval_id]: e instanceof ApiError ? `${e.code}: ${e.message}` : 'not delivered' };
    } finally {
      // Busy until the list is fresh: the answered card's buttons never come back in between.
      await this.refresh();
      this.busy = false;
    }
  }

  private signIn() {
    return html`<section class="panel" role="alert">
      <h1>Sign in to the desktop screen</h1>
      <p>Open the one-time login link that <code>oracle serve</code> printed in its terminal, on this computer. After the gate restarted, or for a new link, run <code>oracle desktop</code> in a terminal on this computer and open the link it prints: the gate keeps running, and what waits for you stays.</p>
    </section>`;
  }

  override render() {
    const h = this.health;
    if (this.signedIn === false) return html`<main>${this.signIn()}</main>`;
    const mode = this.down ? 'unknown' : (h?.mode ?? '…');
    const halted = mode === 'halted';
    const paired = this.devices.some((d) => d.revoked_at === null);
    return html`
      <header>
        <div>
          <h1>ORACLE — desktop</h1>
          <p>Mode: <span class="mode ${mode}" role="status">${this.down ? 'unknown: the gate is not answering' : mode}</span> · <span class=${this.live ? 'ok' : 'muted'}>${this.live ? 'live' : 'not live'}</span></p>
          ${halted && this.haltInfo !== undefined ? html`<p class="halted-by">${haltWords(this.haltInfo, this.devices)}</p>` : nothing}
        </div>
        <div class="controls">
          <oracle-halt ?halted=${halted} ?busy=${this.halting} @halt=${() => void this.act('HALT', '/api/v1/halt', { reason: 'HALT from the desktop' })}></oracle-halt>
          ${halted ? html`<button class="primary resume" ?disabled=${this.busy} @click=${() => void this.act('Resume', '/api/v1/resume', {})}>Resume</button>` : nothing}
        </div>
      </header>
      <main>
      ${this.down ? html`<p class="banner down" role="alert"><strong>The gate is down.</strong> Nothing can be approved, and agents that need a person are refused, until <code>oracle serve</code> runs again; this screen reconnects by itself.</p>` : nothing}
      ${this.notice === '' ? nothing : html`<p class="notice" role="status">${this.notice}</p>`}
      ${mode === 'degraded' ? html`<p class="error" role="alert">The audit log cannot be written (${h?.audit?.reason ?? 'unknown'}, since ${when(h?.audit?.since ?? null)}): every action is refused until it can. Free disk space; the gate recovers by itself.</p>` : nothing}
      ${h?.policy_refused === undefined
        ? nothing
        : html`<div class="banner refused" role="alert"><p><strong>The policy file has errors, so the gate did not take it.</strong> It keeps deciding by the policy in force (${h.policy_digest ?? 'none'}). Fix <code>${h.policy_refused.file}</code> and reload:</p>
            <ul>${h.policy_refused.errors.map((e) => html`<li>line ${e.line}: ${e.message}</li>`)}</ul></div>`}
      ${this.keyProblem === '' ? nothing : html`<p class="error" role="alert">Cannot check the server key, so no card is offered: ${this.keyProblem}</p>`}
      <section class="queue" aria-labelledby="pending-h">
        <h2 id="pending-h">Waiting for you (${this.pendingTotal})</h2>
        ${this.pendingTotal > this.cards.length ? html`<p class="muted">Showing the ${this.cards.length} oldest; answer them to see the rest.</p>` : nothing}
        ${this.cards.length === 0 ? html`<p class="muted">Nothing is waiting.</p>` : nothing}
        ${repeat(
          this.cards,
          (card) => card.approval_id,
          (card) =>
            html`<oracle-card .card=${card} screen="desktop" check=${this.checks[card.approval_id] ?? 'checking'} ?busy=${this.busy} ?settling=${this.settle.holds(card.approval_id)} problem=${this.problems[card.approval_id] ?? ''} @answer=${(e: CustomEvent<Answer>) => void this.answer(card, e.detail)}></oracle-card>`,
        )}
      </section>
      <oracle-candidates-panel @policy-changed=${() => void this.refresh()}></oracle-candidates-panel>
      <oracle-terminals-panel></oracle-terminals-panel>
      <div class="grid">
        <oracle-recent .decisions=${this.recent} .devices=${this.devices}></oracle-recent>
        ${this.devicesPanel()}
        <oracle-remembered-panel .names=${(id: string) => deciderName(id, this.devices)}></oracle-remembered-panel>
        <details class="panel setup" ?open=${!paired}>
          <summary><h2>Pair a phone and trust this gate</h2></summary>
          <oracle-pairing-panel @paired=${() => void this.refresh()}></oracle-pairing-panel>
          <oracle-ca-panel fingerprint=${h?.ca_sha256 ?? ''}></oracle-ca-panel>
        </details>
        <section class="panel" aria-labelledby="undo-h">
          <h2 id="undo-h">Undo recent actions</h2>
          ${this.undo.length === 0 ? html`<p class="muted">Nothing to undo.</p>` : nothing}
          ${this.undoTotal > this.undo.length ? html`<p class="muted undo-more">The ${this.undo.length} newest of ${this.undoTotal}; <code>oracle undo list</code> lists them all.</p>` : nothing}
          <ul class="plain undo-list">
            ${this.undo.map(
              (u) =>
                html`<li>${u.kind} <code>${u.target}</code> <span class="muted">${when(u.created_at)}</span>
                  ${u.applied_at === null ? html`<button class="quiet undo" ?disabled=${this.busy} @click=${() => void this.act(`Undo ${u.kind}`, `/api/v1/desk/undo/${encodeURIComponent(u.id)}`, {})}>Undo</button>` : html`<span class="muted">undone ${when(u.applied_at)}</span>`}</li>`,
            )}
          </ul>
        </section>
        <section class="panel" aria-labelledby="egress-h">
          <h2 id="egress-h">Egress</h2>
          <p class="muted">What left this machine since this screen opened; approval cards above show a request before it is sent, with redactions marked.</p>
          <ul class="plain">
            ${this.egress.map((e) => html`<li><code>${e.url}</code> <span class="muted">→ ${e.address ?? 'not connected'} · ${e.status === null ? 'no answer' : String(e.status)}</span></li>`)}
          </ul>
        </section>
        <details class="panel gate-details">
          <summary><h2>Gate details</h2></summary>
          <p>Policy digest <code class="digest">${h?.policy_digest ?? 'none'}</code></p>
          <p>Server key pin <code>${h?.spki_sha256 ?? ''}</code></p>
          <p class="muted">Edited the policy file? Reload it: a valid file is in force at once, one with errors is refused and the running policy kept.</p>
          <button class="quiet reload-policy" ?disabled=${this.busy} @click=${() => void this.act('Reload the policy', '/api/v1/desk/policy/reload', {})}>Reload policy</button>
        </details>
        <oracle-audit-panel></oracle-audit-panel>
      </div>
      </main>`;
  }

  private devicesPanel() {
    return html`<section class="panel" aria-labelledby="devices-h">
      <h2 id="devices-h">Devices</h2>
      ${this.devices.length === 0 ? html`<p class="muted">No phone paired yet.</p>` : nothing}
      <ul class="plain devices">
        ${this.devices.map((d) => {
          const confirm =
            this.revoking === d.id
              ? html`<span class="row"><span>Revoke ${d.name}? It is cut off at once and must pair again.</span>
                  <button class="danger confirm-revoke" ?disabled=${this.busy} @click=${() => { this.revoking = undefined; void this.act(`Revoke ${d.name}`, `/api/v1/devices/${encodeURIComponent(d.id)}/revoke`, {}); }}>Revoke</button>
                  <button class="quiet keep" @click=${() => { this.revoking = undefined; }}>Keep</button></span>`
              : html`<button class="quiet revoke" ?disabled=${this.busy} @click=${() => { this.revoking = d.id; }}>Revoke…</button>`;
          return html`<li>${d.name} <span class="muted">${d.profile} · ${d.id} · paired ${when(d.created_at)}</span>
            ${d.revoked_at === null ? confirm : html`<span class="muted">revoked ${when(d.revoked_at)}</span>`}</li>`;
        })}
      </ul>
    </section>`;
  }
}
customElements.define('oracle-desktop', OracleDesktop);
