import { LitElement, html, nothing, css } from 'lit';
import type { SignedCard } from '../../../shared/approval-card.js';
import { ApiError, json, request } from '../lib/api.js';
import { deciderName, displayPin, when, verifyCard, type ApprovalsReply } from '../lib/cards.js';
import { fromBase64Url, toBase64Url } from '../../../shared/pairing/bytes.js';
import { sha256 } from '../../../shared/pairing/protocol.js';
import { openLive } from '../lib/live.js';
import type { Answer, CardCheck } from '../ui/approval-card.js';
import { base } from '../ui/styles.js';
import '../ui/approval-card.js';
import '../ui/halt-button.js';
import './pairing-panel.js';
import './ca-panel.js';
import './audit-panel.js';
import type { OracleAuditPanel } from './audit-panel.js';

interface Health {
  readonly mode: string;
  readonly spki_sha256: string;
  readonly policy_digest: string | null;
  readonly ca_sha256: string;
}

interface DeviceRow {
  readonly id: string;
  readonly name: string;
  readonly profile: string;
  readonly created_at: string;
  readonly revoked_at: string | null;
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
    checks: { state: true },
    recent: { state: true },
    devices: { state: true },
    undo: { state: true },
    egress: { state: true },
    busy: { state: true },
    problems: { state: true },
    notice: { state: true },
    live: { state: true },
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
        grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr));
        gap: 1rem;
        align-items: start;
      }
      .mode {
        font-weight: 700;
      }
      .mode.halted {
        color: var(--danger);
      }
      .mode.read-only {
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
  declare checks: Readonly<Record<string, CardCheck>>;
  declare recent: readonly SignedCard[];
  declare devices: readonly DeviceRow[];
  declare undo: readonly UndoRow[];
  declare egress: readonly EgressRow[];
  declare busy: boolean;
  declare problems: Readonly<Record<string, string>>;
  declare notice: string;
  declare live: boolean;
  private serverKey: CryptoKey | undefined;
  private stream: { close: () => void } | undefined;
  private auditTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.health = undefined;
    this.signedIn = undefined;
    this.cards = [];
    this.checks = {};
    this.recent = [];
    this.devices = [];
    this.undo = [];
    this.egress = [];
    this.busy = false;
    this.problems = {};
    this.notice = '';
    this.live = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    void this.start();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stream?.close();
  }

  private async start(): Promise<void> {
    try {
      this.health = (await request<Health>('/api/v1/health')).body;
      // The key that signs cards: the server's own TLS key, checked against the pin health reports.
      const attest = (await request<{ spki: string }>(`/api/v1/attest?nonce=${toBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(18)))}`)).body;
      const der = fromBase64Url(attest.spki);
      if (der === undefined || displayPin(toBase64Url(await sha256(globalThis.crypto.subtle, der))) !== this.health.spki_sha256) throw new ApiError(0, 'KEY_MISMATCH', 'the server key does not match its own pin');
      this.serverKey = await globalThis.crypto.subtle.importKey('spki', der, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    } catch (e) {
      // Without the key no card verifies, so none is offered; the rest of the screen still works.
      this.notice = e instanceof ApiError ? `Cannot check the server key: ${e.message}` : 'the gate cannot be reached';
    }
    await this.refresh();
    if (this.signedIn !== true) return;
    this.stream = openLive({
      headers: {},
      onMessage: (m) => {
        if (m.type === 'egress') this.egress = [{ url: String(m.data['url']), address: typeof m.data['address'] === 'string' ? m.data['address'] : null, status: typeof m.data['status'] === 'number' ? m.data['status'] : null }, ...this.egress].slice(0, 20);
        if (m.type !== 'heartbeat') void this.refresh();
      },
      onState: (live) => {
        this.live = live;
      },
      onRefused: () => {
        this.signedIn = false;
      },
    });
  }

  private async refresh(): Promise<void> {
    try {
      const [health, approvals, devices, undo] = await Promise.all([
        request<Health>('/api/v1/health'),
        request<ApprovalsReply>('/api/v1/approvals'),
        request<{ devices: DeviceRow[] }>('/api/v1/devices'),
        request<{ undo: UndoRow[] }>('/api/v1/desk/undo'),
      ]);
      this.signedIn = true;
      this.health = health.body;
      this.recent = approvals.body.recent;
      this.devices = devices.body.devices;
      this.undo = undo.body.undo;
      const checks: Record<string, CardCheck> = {};
      for (const card of approvals.body.approvals) checks[card.approval_id] = this.serverKey !== undefined && (await verifyCard(this.serverKey, card)) ? 'verified' : 'bad-signature';
      this.checks = checks;
      this.cards = approvals.body.approvals;
      this.auditSoon();
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) this.signedIn = false;
      else this.notice = e instanceof Error ? e.message : 'refresh failed';
    }
  }

  /** Runs one desktop change and reports its outcome in words; the screen refreshes after. */
  private async act(what: string, path: string, body: unknown): Promise<boolean> {
    this.busy = true;
    try {
      await request(path, json('POST', body));
      this.notice = `${what}: done.`;
      return true;
    } catch (e) {
      this.notice = e instanceof ApiError ? `${what} failed: ${e.code}: ${e.message}` : `${what} failed`;
      return false;
    } finally {
      this.busy = false;
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
      await request(`/api/v1/approvals/${encodeURIComponent(card.approval_id)}/${a.verdict}`, json('POST', { nonce: card.nonce, arg_hash: card.arg_hash, ...(a.message === undefined ? {} : { message: a.message }), ...(a.phrase === undefined ? {} : { phrase: a.phrase }) }));
      this.problems = { ...this.problems, [card.approval_id]: '' };
      this.notice = `${a.verdict === 'approve' ? 'Approved' : 'Denied'} ${card.tool}.`;
    } catch (e) {
      this.problems = { ...this.problems, [card.approval_id]: e instanceof ApiError ? `${e.code}: ${e.message}` : 'not delivered' };
    } finally {
      this.busy = false;
      await this.refresh();
    }
  }

  private signIn() {
    return html`<section class="panel" role="alert">
      <h1>Sign in to the desktop screen</h1>
      <p>Open the one-time login link that <code>oracle serve</code> printed in its terminal, on this computer. Restart <code>npm start</code> for a new link.</p>
    </section>`;
  }

  override render() {
    const h = this.health;
    if (this.signedIn === false) return this.signIn();
    const mode = h?.mode ?? '…';
    const halted = mode === 'halted';
    return html`
      <header>
        <div>
          <h1>ORACLE — desktop</h1>
          <p>Mode: <span class="mode ${mode}" role="status">${mode}</span> · policy <code class="digest">${h?.policy_digest ?? 'none'}</code> · <span class=${this.live ? 'ok' : 'muted'}>${this.live ? 'live' : 'not live'}</span></p>
          <p class="muted">Server key pin <code>${h?.spki_sha256 ?? ''}</code></p>
        </div>
        <div class="controls">
          <oracle-halt ?halted=${halted} ?busy=${this.busy} @halt=${() => void this.act('HALT', '/api/v1/halt', { reason: 'HALT from the desktop' })}></oracle-halt>
          ${halted ? html`<button class="primary resume" ?disabled=${this.busy} @click=${() => void this.act('Resume', '/api/v1/resume', {})}>Resume</button>` : nothing}
        </div>
      </header>
      ${this.notice === '' ? nothing : html`<p class="notice" role="status">${this.notice}</p>`}
      <div class="grid">
        <section aria-labelledby="pending-h">
          <h2 id="pending-h">Waiting for you (${this.cards.length})</h2>
          ${this.cards.length === 0 ? html`<p class="muted">Nothing is waiting.</p>` : nothing}
          ${this.cards.map(
            (card) =>
              html`<oracle-card .card=${card} screen="desktop" check=${this.checks[card.approval_id] ?? 'checking'} ?busy=${this.busy} problem=${this.problems[card.approval_id] ?? ''} @answer=${(e: CustomEvent<Answer>) => void this.answer(card, e.detail)}></oracle-card>`,
          )}
          <div class="panel">
            <h2>Recent decisions</h2>
            <ul class="plain">
              ${this.recent.map((r) => html`<li><strong>${r.state}</strong> ${r.tool} <span class="muted">${r.tier} · by ${deciderName(r.device, this.devices)} · ${when(r.decided_at ?? r.expires_at)}</span></li>`)}
            </ul>
          </div>
        </section>
        <oracle-pairing-panel></oracle-pairing-panel>
        <section class="panel" aria-labelledby="undo-h">
          <h2 id="undo-h">Undo recent actions</h2>
          ${this.undo.length === 0 ? html`<p class="muted">Nothing to undo.</p>` : nothing}
          <ul class="plain undo-list">
            ${this.undo.map(
              (u) =>
                html`<li>${u.kind} <code>${u.target}</code> <span class="muted">${u.created_at}</span>
                  ${u.applied_at === null ? html`<button class="quiet undo" ?disabled=${this.busy} @click=${() => void this.act(`Undo ${u.kind}`, `/api/v1/desk/undo/${encodeURIComponent(u.id)}`, {})}>Undo</button>` : html`<span class="muted">undone ${u.applied_at}</span>`}</li>`,
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
        <section class="panel" aria-labelledby="devices-h">
          <h2 id="devices-h">Devices</h2>
          ${this.devices.length === 0 ? html`<p class="muted">No phone paired yet.</p>` : nothing}
          <ul class="plain devices">
            ${this.devices.map(
              (d) =>
                html`<li>${d.name} <span class="muted">${d.profile} · ${d.id} · paired ${d.created_at.slice(0, 10)}</span>
                  ${d.revoked_at === null ? html`<button class="quiet revoke" ?disabled=${this.busy} @click=${() => void this.act(`Revoke ${d.name}`, `/api/v1/devices/${encodeURIComponent(d.id)}/revoke`, {})}>Revoke</button>` : html`<span class="muted">revoked ${d.revoked_at}</span>`}</li>`,
            )}
          </ul>
        </section>
        <oracle-ca-panel fingerprint=${h?.ca_sha256 ?? ''}></oracle-ca-panel>
        <oracle-audit-panel></oracle-audit-panel>
      </div>`;
  }
}
customElements.define('oracle-desktop', OracleDesktop);
