import { LitElement, html, nothing, css } from 'lit';
import { ApiError, json, request } from '../lib/api.js';
import { base } from '../ui/styles.js';
import '../ui/countdown.js';

interface Started {
  readonly pid: string;
  readonly mode: 'qr' | 'code';
  readonly code: string;
  readonly expires_at: number;
  readonly url: string | null;
  readonly fallback_urls: readonly string[];
  readonly qr_svg: string | null;
  readonly origins: readonly string[];
}

interface SessionView {
  readonly state: string;
  readonly expires_at: number;
  readonly attempts: number;
  readonly name: string | null;
  readonly comparison_code: string | null;
}

/** States after which a session takes no more steps. */
const ENDED: readonly string[] = ['delivered', 'rejected', 'burned', 'failed', 'expired'];

/**
 * Pairing on the desktop (SPEC §9, §9a): the QR (rendered by the server as SVG, shown as an image,
 * never as markup), the 8-digit code and its countdown; then "Pair <name>?" with the comparison
 * code the phone shows, confirmed or rejected here.
 */
export class OraclePairingPanel extends LitElement {
  static override properties = { started: { state: true }, view: { state: true }, problem: { state: true } };
  static override styles = [
    base,
    css`
      img.qr {
        width: 240px;
        height: 240px;
        image-rendering: pixelated;
        background: #fff;
        border: 1px solid var(--line);
      }
      .code {
        font: 700 1.6rem/1.2 ui-monospace, Menlo, Consolas, monospace;
        letter-spacing: 0.15em;
      }
      .confirm {
        border: 3px solid var(--accent);
        border-radius: 10px;
        padding: 0.75rem;
      }
    `,
  ];
  declare started: Started | undefined;
  declare view: SessionView | undefined;
  declare problem: string;
  private poll: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.started = undefined;
    this.view = undefined;
    this.problem = '';
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearInterval(this.poll);
  }

  private async start(mode: 'qr' | 'code'): Promise<void> {
    this.problem = '';
    // A new code replaces this screen's previous one: cancel it so live sessions do not pile up.
    const previous = this.started;
    if (previous !== undefined && !ENDED.includes(this.view?.state ?? 'open')) {
      await request('/api/v1/pair/confirm', json('POST', { pid: previous.pid, accept: false })).catch(() => undefined);
    }
    try {
      this.started = (await request<Started>('/api/v1/pair/start', json('POST', { mode }))).body;
      this.view = undefined;
      clearInterval(this.poll);
      this.poll = setInterval(() => void this.refresh(), 1000);
    } catch (e) {
      this.problem = e instanceof ApiError ? e.message : 'could not open a pairing session';
    }
  }

  private async refresh(): Promise<void> {
    const s = this.started;
    if (s === undefined) return;
    try {
      this.view = (await request<SessionView>(`/api/v1/pair/sessions/${s.pid}`)).body;
      if (ENDED.includes(this.view.state)) clearInterval(this.poll);
    } catch (e) {
      this.problem = e instanceof ApiError ? e.message : 'lost the pairing session';
      clearInterval(this.poll);
    }
  }

  private async confirm(accept: boolean): Promise<void> {
    const s = this.started;
    if (s === undefined) return;
    try {
      this.view = (await request<SessionView>('/api/v1/pair/confirm', json('POST', { pid: s.pid, accept }))).body;
      // The screen around this panel lists devices: it reads them again now.
      if (accept) this.dispatchEvent(new CustomEvent('paired', { bubbles: true, composed: true }));
    } catch (e) {
      this.problem = e instanceof ApiError ? e.message : 'the confirmation failed';
    }
  }

  private session() {
    const s = this.started;
    if (s === undefined) return nothing;
    const v = this.view;
    if (v?.state === 'claimed' && v.name !== null && v.comparison_code !== null) {
      return html`<div class="confirm" role="alertdialog" aria-labelledby="pair-q">
        <h3 id="pair-q">Pair “${v.name}”?</h3>
        <p>The phone shows this code. Confirm only if it is the same:</p>
        <p class="code comparison">${v.comparison_code}</p>
        ${s.mode === 'code' ? html`<p class="muted">Typed-code pairing: this comparison is what stops a relay in the middle.</p>` : nothing}
        <div class="row">
          <button class="primary confirm-pair" @click=${() => void this.confirm(true)}>Pair</button>
          <button class="quiet" @click=${() => void this.confirm(false)}>Reject</button>
        </div>
      </div>`;
    }
    if (v !== undefined && v.state !== 'open') {
      return html`<p class=${v.state === 'delivered' || v.state === 'approved' || v.state === 'delivering' ? 'ok' : 'error'} role="status">Pairing ${v.state}${v.name === null ? '' : `: ${v.name}`}.</p>`;
    }
    const qr = s.qr_svg === null ? undefined : `data:image/svg+xml;charset=utf-8,${encodeURIComponent(s.qr_svg)}`;
    return html`<div class="row">
        ${qr === undefined ? nothing : html`<img class="qr" src=${qr} alt="Pairing QR code: scan it with the phone’s camera" />`}
        <div>
          <p>Code: <span class="code pairing-code">${s.code}</span></p>
          <oracle-countdown .at=${s.expires_at}></oracle-countdown>
          ${s.mode === 'code'
            ? html`<p>On the phone, open one of these and type the code:</p><ul>${s.origins.map((o) => html`<li><code>${o}</code></li>`)}</ul>`
            : html`<p class="muted">Or open this link on the phone:</p><pre class="pair-url">${s.url}</pre>`}
          ${loopbackOnly(s.url ?? s.origins[0] ?? '') ? html`<p class="error loopback" role="alert">This QR points at this computer’s own loopback address, which no phone can reach. Stop the gate and start it with <code>oracle serve --lan</code> (or <code>npm start -- --lan</code>), then show a new QR.</p>` : nothing}
          ${v === undefined ? nothing : html`<p class="muted">Failed attempts: ${v.attempts} of 5.</p>`}
        </div>
      </div>`;
  }

  override render() {
    return html`<section class="panel" aria-labelledby="pair-h">
      <h2 id="pair-h">Pair a phone</h2>
      <div class="row">
        <button class="primary start-qr" @click=${() => void this.start('qr')}>Show pairing QR</button>
        <button class="quiet start-code" @click=${() => void this.start('code')}>Pair with a typed code</button>
      </div>
      ${this.problem === '' ? nothing : html`<p class="error" role="alert">${this.problem}</p>`}
      ${this.session()}
    </section>`;
  }
}
/** A pairing URL only this machine can open (the gate listens on loopback without --lan). */
function loopbackOnly(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  } catch {
    return false;
  }
}

customElements.define('oracle-pairing-panel', OraclePairingPanel);
