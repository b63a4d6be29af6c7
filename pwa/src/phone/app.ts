import { LitElement, html, nothing, css } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { SignedCard } from '../../../shared/approval-card.js';
import type { DeviceView } from '../../../shared/device-view.js';
import { ApiError } from '../lib/api.js';
import { deciderName, displayPin, haltWords, verifyCard, when, type ApprovalsReply } from '../lib/cards.js';
import { sentenceOf, stateWords } from '../lib/sentence.js';
import { DeviceClient } from '../lib/device-client.js';
import { forgetDevice, loadDevice, type StoredDevice } from '../lib/device-store.js';
import { openLive } from '../lib/live.js';
import { checkPin } from '../lib/pin.js';
import type { Answer, CardCheck } from '../ui/approval-card.js';
import { base } from '../ui/styles.js';
import { Settle } from '../ui/settle.js';
import '../ui/approval-card.js';
import '../ui/halt-button.js';
import '../ui/recent-decisions.js';
import './pair-screen.js';
import './notify-panel.js';

type Screen = { readonly kind: 'boot' } | { readonly kind: 'pair' } | { readonly kind: 'changed-key'; readonly pinned: string; readonly seen: string } | { readonly kind: 'unreachable'; readonly reason: string } | { readonly kind: 'revoked' } | { readonly kind: 'home' };

/**
 * The phone (SPEC §9, §10): pair, then on every start check the server key against the pin
 * (a changed key gets its own screen and nothing else), then the pending approvals, recent
 * decisions, devices and HALT, kept live over SSE.
 */
export class OraclePhone extends LitElement {
  static override properties = {
    screen: { state: true },
    cards: { state: true },
    pendingTotal: { state: true },
    checks: { state: true },
    recent: { state: true },
    devices: { state: true },
    mode: { state: true },
    live: { state: true },
    busy: { state: true },
    halting: { state: true },
    problems: { state: true },
    notice: { state: true },
    current: { state: true },
    offline: { state: true },
    spoken: { state: true },
    gone: { state: true },
    haltInfo: { state: true },
  };
  static override styles = [
    base,
    css`
      :host {
        max-width: 40rem;
        margin: 0 auto;
        padding: env(safe-area-inset-top) calc(0.75rem + env(safe-area-inset-right)) 2rem calc(0.75rem + env(safe-area-inset-left));
      }
      header {
        display: flex;
        justify-content: space-between;
        align-items: baseline;
        gap: 0.5rem;
        padding-top: 0.5rem;
      }
      .status {
        font-size: 0.85rem;
      }
      .banner {
        border-radius: 8px;
        padding: 0.75rem;
        margin: 0.5rem 0;
        font-weight: 600;
      }
      .banner.halted {
        background: var(--danger-bg);
        color: var(--danger-ink);
      }
      .banner.readonly {
        background: var(--warn-bg);
        color: var(--warn);
      }
      /* The status line wraps anywhere and stays three lines at most: a long command or URL in it
         had widened the page past the screen and pushed HALT out of view (phone probe, session 36). */
      .notice {
        overflow-wrap: anywhere;
        display: -webkit-box;
        -webkit-box-orient: vertical;
        -webkit-line-clamp: 3;
        line-clamp: 3;
        overflow: hidden;
      }
    `,
  ];
  declare screen: Screen;
  declare cards: readonly SignedCard[];
  declare pendingTotal: number;
  declare checks: Readonly<Record<string, CardCheck>>;
  declare recent: readonly SignedCard[];
  declare devices: readonly DeviceView[];
  declare mode: string;
  declare live: boolean;
  declare busy: boolean;
  /** HALT's own in-flight flag: another pending request never disables the emergency stop. */
  declare halting: boolean;
  declare problems: Readonly<Record<string, string>>;
  declare notice: string;
  /** The card on screen (one at a time); the oldest when unset or answered. */
  declare current: string | undefined;
  /** The last request to the gate failed to reach it. */
  declare offline: boolean;
  /** What the live region last said (new requests). */
  declare spoken: string;
  /**
   * The card on screen ended without this phone's answer (withdrawn, expired, answered elsewhere,
   * HALT) while others wait: said in its place until the person asks for the next one, never
   * swapped silently, so a tap meant for it cannot land on another request.
   */
  declare gone: { readonly what: string; readonly outcome: string } | undefined;
  /** The card on screen just changed: its buttons wait a moment (settle.ts). */
  private readonly settle = new Settle(() => {
    this.requestUpdate();
  });
  /** The card whose arrival on screen last started `settle`. */
  private settledFor: string | undefined;
  /** A card just came on screen: it is shown from its top (`updated`). */
  private showTop = false;
  /** The HALT in force, when one is: who, when and why. */
  declare haltInfo: ApprovalsReply['halt'];
  /** The card this phone is answering: its end is the person's own doing, not news. */
  private answering: string | undefined;
  private client: DeviceClient | undefined;
  private serverKey: CryptoKey | undefined;
  private stream: { close: () => void } | undefined;
  /** Refreshes overlap (every event starts one): only the newest may write the screen. */
  private generation = 0;
  /** The pairing link this page was opened with; taken out of the address bar at once. */
  private readonly link: string;

  constructor() {
    super();
    this.screen = { kind: 'boot' };
    this.cards = [];
    this.pendingTotal = 0;
    this.checks = {};
    this.recent = [];
    this.devices = [];
    this.mode = '';
    this.live = false;
    this.busy = false;
    this.halting = false;
    this.problems = {};
    this.notice = '';
    this.current = undefined;
    this.haltInfo = undefined;
    this.offline = false;
    this.spoken = '';
    this.gone = undefined;
    this.link = location.pathname === '/pair' && location.hash.length > 1 ? location.href : '';
    // A tapped notification opens the app on its card (`#card=ID`, sw.ts).
    const card = /^#card=(ap_[A-Za-z0-9_-]+)$/u.exec(location.hash);
    if (card !== null) this.current = card[1];
    if (location.hash !== '') history.replaceState(null, '', location.pathname);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // The service worker shows this open app the card of a tapped notification.
    if ('serviceWorker' in navigator) navigator.serviceWorker.addEventListener('message', this.onWorkerMessage);
    void this.start();
  }

  private readonly onWorkerMessage = (event: MessageEvent): void => {
    const data = event.data as { type?: unknown; approval_id?: unknown } | null;
    if (data?.type !== 'open-card') return;
    if (typeof data.approval_id === 'string') this.current = data.approval_id;
    void this.refresh();
  };

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    if ('serviceWorker' in navigator) navigator.serviceWorker.removeEventListener('message', this.onWorkerMessage);
    this.stream?.close();
    this.settle.stop();
  }

  private async start(): Promise<void> {
    let device: StoredDevice | undefined;
    try {
      device = await loadDevice();
    } catch {
      this.screen = { kind: 'unreachable', reason: 'This browser refused to open its storage (private mode?). Pairing needs it.' };
      return;
    }
    if (device === undefined || this.link !== '') {
      this.screen = { kind: 'pair' };
      return;
    }
    await this.open(device);
  }

  private async open(device: StoredDevice): Promise<void> {
    const client = new DeviceClient(device);
    const pin = await checkPin(device.k, client.bearer);
    if (!pin.ok) {
      if (pin.changed) this.screen = { kind: 'changed-key', pinned: device.k, seen: pin.seen };
      else this.screen = pin.refused === true ? { kind: 'revoked' } : { kind: 'unreachable', reason: pin.reason };
      return;
    }
    this.serverKey = pin.key;
    this.client = client;
    this.screen = { kind: 'home' };
    this.stream?.close();
    this.stream = openLive({
      headers: this.client.bearer,
      onMessage: (m) => {
        if (m.type.startsWith('approval.') || m.type === 'halt' || m.type === 'resume' || m.type === 'mode') void this.refresh();
      },
      onState: (live) => {
        this.live = live;
        if (live) void this.refresh();
      },
      onRefused: () => {
        this.screen = { kind: 'revoked' };
      },
    });
  }

  /** Another card under the person's thumb (the next one after an answer, a page turned): it settles first. */
  override willUpdate(): void {
    const shown = this.screen.kind === 'home' ? this.shownCard()?.approval_id : undefined;
    if (shown === this.settledFor) return;
    this.settledFor = shown;
    if (shown !== undefined) {
      this.settle.start(shown);
      this.showTop = true;
    }
  }

  /**
   * A new card starts at its top: the page had stayed scrolled where a long card's diff had taken
   * it, so the next card's sentence, risk and countdown sat under the sticky HALT bar (phone
   * probe, session 36).
   */
  override updated(): void {
    if (!this.showTop) return;
    this.showTop = false;
    const card = this.renderRoot.querySelector('oracle-card');
    if (card !== null && card.getBoundingClientRect().top < 0) window.scrollTo({ top: 0 });
  }

  private async refresh(): Promise<void> {
    const client = this.client;
    const key = this.serverKey;
    if (client === undefined || key === undefined) return;
    const generation = ++this.generation;
    try {
      const [approvals, devices] = await Promise.all([client.get<ApprovalsReply>('/api/v1/approvals'), client.get<{ devices: DeviceView[] }>('/api/v1/devices')]);
      const checks: Record<string, CardCheck> = {};
      for (const card of approvals.body.approvals) checks[card.approval_id] = (await verifyCard(key, card)) ? 'verified' : 'bad-signature';
      if (generation !== this.generation) return;
      this.noteGone(approvals.body);
      this.mode = approvals.body.mode;
      this.haltInfo = approvals.body.halt;
      this.recent = approvals.body.recent;
      this.devices = devices.body.devices;
      this.checks = checks;
      this.cards = approvals.body.approvals;
      const total = approvals.body.pending_total ?? approvals.body.approvals.length;
      this.announce(total);
      this.pendingTotal = total;
      // Reached again: the notice that it could not be reached is over.
      if (this.offline) this.notice = '';
      this.offline = false;
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) this.screen = { kind: 'revoked' };
      else {
        this.offline = e instanceof ApiError && (e.code === 'OFFLINE' || e.code === 'TIMEOUT');
        this.notice = e instanceof Error ? e.message : 'could not load approvals';
      }
    }
  }

  /**
   * The card on screen before this refresh, when it is no longer waiting and this phone did not
   * answer it: held in place of the next card while others wait, else said in the status line.
   */
  private noteGone(reply: ApprovalsReply): void {
    const shown = this.shownCard();
    if (shown === undefined || shown.approval_id === this.answering || reply.approvals.some((c) => c.approval_id === shown.approval_id)) return;
    const ended = reply.recent.find((c) => c.approval_id === shown.approval_id);
    const s = sentenceOf(shown);
    const gone = { what: `${s.verb} ${s.object}`, outcome: ended === undefined ? 'no longer waiting' : stateWords(ended, deciderName(ended.device, this.devices)) };
    this.current = undefined;
    if (reply.approvals.length > 0) this.gone = gone;
    else this.notice = `No longer waiting: ${gone.what} — ${gone.outcome}.`;
  }

  /** The card the pager shows: the chosen one, else the oldest. */
  private shownCard(): SignedCard | undefined {
    if (this.gone !== undefined) return undefined;
    return this.cards.find((c) => c.approval_id === this.current) ?? this.cards[0];
  }

  /** The count in the title and on the app icon; a short buzz when a new request arrived. */
  private announce(total: number): void {
    document.title = total > 0 ? `(${String(total)}) ORACLE` : 'ORACLE';
    // The Badging API: Chromium on desktop and Android's installed apps, Safari on iOS 16.4+.
    if ('setAppBadge' in navigator) void (total > 0 ? navigator.setAppBadge(total) : navigator.clearAppBadge()).catch(() => undefined);
    if (total > this.pendingTotal) this.spoken = `${String(total - this.pendingTotal)} new ${total - this.pendingTotal === 1 ? 'request' : 'requests'}; ${String(total)} waiting for you.`;
    if (total > this.pendingTotal && document.visibilityState === 'visible' && 'vibrate' in navigator) navigator.vibrate(180);
  }

  private async answer(card: SignedCard, answer: Answer): Promise<void> {
    const client = this.client;
    // A tap that came before the buttons were drawn disabled: nothing is signed while another
    // answer or a HALT is on its way (a later counter could overtake HALT's).
    if (client === undefined || this.busy || this.halting) return;
    this.busy = true;
    this.answering = card.approval_id;
    // "Deny and HALT" halts first, whatever becomes of the denial (phone probe, session 36), and
    // alone: the gate takes a device's signed requests in counter order, so a HALT sent beside the
    // denial could be refused as out of order (review, session 36). HALT cancels the card with
    // every other waiting one; the denial is sent only if HALT did not go through.
    let haltFailed = '';
    if (answer.halt === true) {
      await this.halt();
      haltFailed = `${this.notice === '' ? 'HALT did not go through' : this.notice}: press HALT again.`;
      if (this.mode === 'halted') {
        const what = sentenceOf(card);
        await this.refresh();
        this.busy = false;
        this.notice = `Halted: every agent action is stopped, and ${what.verb} ${what.object} with them.`;
        return;
      }
    }
    let refused = false;
    try {
      await client.post(`/api/v1/approvals/${encodeURIComponent(card.approval_id)}/${answer.verdict}`, { nonce: card.nonce, arg_hash: card.arg_hash, ...(answer.message === undefined ? {} : { message: answer.message }), ...(answer.remember === undefined ? {} : { remember_seconds: answer.remember.seconds, remember_scope: answer.remember.scope }) });
      this.problems = { ...this.problems, [card.approval_id]: '' };
      const what = sentenceOf(card);
      // (Here after "Deny and HALT" only when HALT did not go through: said first.)
      this.notice = `${answer.halt === true ? `${haltFailed} ` : ''}${answer.verdict === 'approve' ? 'Approved' : 'Denied'}: ${what.verb} ${what.object}.`;
    } catch (e) {
      this.problems = { ...this.problems, [card.approval_id]: e instanceof ApiError ? `${e.code}: ${e.message}` : 'the answer was not delivered' };
      this.offline = e instanceof ApiError && (e.code === 'OFFLINE' || e.code === 'TIMEOUT');
      refused = true;
    } finally {
      // Busy until the list is fresh: the answered card's buttons never come back in between.
      await this.refresh();
      this.busy = false;
    }
    // Refused because it had ended meanwhile (another phone or the desktop answered first): the card
    // and its error are gone from the screen, so say here that this answer did not count, and what did.
    if (refused && !this.cards.some((c) => c.approval_id === card.approval_id)) {
      const ended = this.recent.find((c) => c.approval_id === card.approval_id);
      const what = sentenceOf(card);
      // (HALT may have gone through though its answer did not arrive: the mode, read afresh, says.)
      const halted = answer.halt !== true ? '' : this.mode === 'halted' ? ' The gate is halted.' : ` ${haltFailed}`;
      this.notice = `Your ${answer.verdict === 'approve' ? 'approval' : 'denial'} did not count: ${what.verb} ${what.object} — ${ended === undefined ? 'no longer waiting' : stateWords(ended, deciderName(ended.device, this.devices))}.${halted}`;
    }
  }

  private async halt(): Promise<void> {
    const client = this.client;
    if (client === undefined) return;
    this.halting = true;
    try {
      const reply = await client.post<{ mode: string }>('/api/v1/halt', { reason: `HALT from ${client.device.name}` });
      this.mode = reply.body.mode;
      this.notice = '';
    } catch (e) {
      this.notice = e instanceof ApiError ? `HALT failed: ${e.code}: ${e.message}` : 'HALT failed';
    } finally {
      this.halting = false;
    }
  }

  private async forget(): Promise<void> {
    await forgetDevice();
    this.stream?.close();
    this.screen = { kind: 'pair' };
  }

  private home() {
    const halted = this.mode === 'halted';
    return html`
      <oracle-halt ?halted=${halted} ?busy=${this.halting} @halt=${() => void this.halt()}></oracle-halt>
      <header>
        <h1>ORACLE</h1>
        <span class="status ${this.offline ? 'error' : this.live ? 'ok' : 'muted'}" role="status">${this.offline ? 'offline' : this.live ? 'live' : 'reconnecting…'}</span>
      </header>
      ${this.mode === 'read-only' ? html`<p class="banner readonly">The gate runs read-only: its policy did not load.</p>` : nothing}
      ${this.mode === 'degraded' ? html`<p class="banner readonly" role="alert">The gate cannot write its audit log (a full disk?): it refuses every action until it can, and recovers by itself.</p>` : nothing}
      ${halted ? html`<p class="banner halted">Halted${this.haltInfo === undefined ? '' : ` (${haltWords(this.haltInfo, this.devices)})`}. Resume from the desktop.</p>` : nothing}
      ${this.notice === '' ? nothing : html`<p class="muted notice" role="status" title=${this.notice}>${this.notice}</p>`}
      <oracle-notify .client=${this.client}></oracle-notify>
      <section aria-labelledby="pending-h">
        <h2 id="pending-h">Waiting for you (${this.pendingTotal})</h2>
        ${this.gone === undefined ? nothing : this.goneNotice(this.gone)}
        ${this.cards.length === 0 ? html`<p class="muted">Nothing is waiting.</p>` : this.gone === undefined ? this.pager() : nothing}
      </section>
      <oracle-recent .decisions=${this.recent} .devices=${this.devices}></oracle-recent>
      <section class="panel" aria-labelledby="devices-h">
        <h2 id="devices-h">Devices</h2>
        <ul class="plain">
          ${this.devices.map((d) => html`<li>${d.name}${d.id === this.client?.device.deviceId ? html` <span class="badge">this phone</span>` : nothing} <span class="muted">${d.profile} · paired ${when(d.created_at)}${d.revoked_at === null ? '' : ` · revoked ${when(d.revoked_at)}`}</span></li>`)}
        </ul>
        <p class="muted">Devices are revoked from the desktop.</p>
      </section>`;
  }

  /** In place of a card that ended while shown; the next one only on request, away from the thumb zone. */
  private goneNotice(gone: NonNullable<OraclePhone['gone']>) {
    return html`<div class="panel gone" role="alert">
      <p>The request on screen is no longer waiting: <strong>${gone.what}</strong> — ${gone.outcome}.</p>
      ${this.cards.length === 0
        ? nothing
        : html`<button class="quiet show-next" @click=${() => { this.gone = undefined; }}>Show the next request (${this.pendingTotal} waiting)</button>`}
    </div>`;
  }

  /** One card at a time, the oldest first (it expires first), with where it stands among the rest. */
  private pager() {
    const at = Math.max(0, this.cards.findIndex((c) => c.approval_id === this.current));
    const card = this.cards[at];
    if (card === undefined) return nothing;
    const go = (step: number): void => {
      this.current = this.cards[(at + step + this.cards.length) % this.cards.length]?.approval_id;
    };
    return html`${this.cards.length > 1 || this.pendingTotal > this.cards.length
        ? html`<nav class="pager row" aria-label="Requests">
            <button class="quiet prev" ?disabled=${this.cards.length < 2} @click=${() => { go(-1); }} aria-label="Previous request">‹</button>
            <span class="position" aria-live="polite">${at + 1} of ${this.pendingTotal}</span>
            <button class="quiet next" ?disabled=${this.cards.length < 2} @click=${() => { go(1); }} aria-label="Next request">›</button>
          </nav>`
        : nothing}
      ${this.pendingTotal > this.cards.length ? html`<p class="muted more-waiting">Showing the ${String(this.cards.length)} oldest; ${String(this.pendingTotal - this.cards.length)} more wait: answer these to see them.</p>` : nothing}
      ${repeat(
        [card],
        (c) => c.approval_id,
        (c) =>
          html`<oracle-card .card=${c} screen="phone" check=${this.checks[c.approval_id] ?? 'checking'} ?busy=${this.busy || this.halting} ?settling=${this.settle.holds(c.approval_id)} problem=${this.problems[c.approval_id] ?? ''} @answer=${(e: CustomEvent<Answer>) => void this.answer(c, e.detail)}></oracle-card>`,
      )}`;
  }

  override render() {
    // One main landmark around every screen; new requests are announced to screen readers.
    return html`<main>${this.screenContent()}</main><p class="sr-only" role="status" aria-live="polite">${this.spoken}</p>`;
  }

  private screenContent() {
    const s = this.screen;
    switch (s.kind) {
      case 'boot':
        return html`<p class="muted">Checking the gate’s key…</p>`;
      case 'pair':
        return html`<oracle-pair .link=${this.link} @paired=${(e: CustomEvent<StoredDevice>) => void this.open(e.detail)}></oracle-pair>`;
      case 'changed-key':
        return html`<section class="panel changed-key" role="alert">
          <h1>The gate’s key changed</h1>
          <p class="error">This phone refuses to talk to this server: it does not hold the key this phone was paired with. Someone may be impersonating your gate, or it was reinstalled.</p>
          <p>Pinned key: <code>${displayPin(s.pinned)}</code></p>
          <p>Key offered now: <code>${displayPin(s.seen)}</code></p>
          <p>If you reinstalled ORACLE yourself, forget this gate and pair again from the desktop.</p>
          <button class="quiet" @click=${() => void this.forget()}>Forget this gate</button>
        </section>`;
      case 'unreachable':
        return html`<section class="panel" role="alert"><h1>Cannot check the gate</h1><p class="error">${s.reason}</p><button class="primary" @click=${() => { location.reload(); }}>Try again</button></section>`;
      case 'revoked':
        return html`<section class="panel" role="alert"><h1>This phone is no longer paired</h1><p>The gate refused this phone’s credential (revoked on the desktop?).</p><button class="primary" @click=${() => void this.forget()}>Pair again</button></section>`;
      case 'home':
        return this.home();
    }
  }
}
customElements.define('oracle-phone', OraclePhone);
