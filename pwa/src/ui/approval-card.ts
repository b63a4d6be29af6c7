import { LitElement, html, css, nothing } from 'lit';
import { confirmationPhrase, type SignedCard } from '../../../shared/approval-card.js';
import { detailsOf, readSources, redactionParts, type Detail } from '../lib/cards.js';
import { riskWords, sentenceOf } from '../lib/sentence.js';
import { base } from './styles.js';
import './countdown.js';

export type CardCheck = 'checking' | 'verified' | 'bad-signature' | 'key-unavailable';

export interface Answer {
  readonly verdict: 'approve' | 'deny';
  readonly message?: string;
  readonly phrase?: string;
  /** Deny, then HALT everything (the phone's answer to a T3 it must not approve). */
  readonly halt?: boolean;
  /** Approve, and answer exactly this again without asking: for this session, or (desktop) this project. */
  readonly remember?: { readonly scope: 'session' | 'project'; readonly seconds: number };
}

/** "The rest of this session": as long as the gate lets a remembered answer live (12 hours). */
const SESSION_SECONDS = 12 * 3600;
/** The desktop's "for this project for N hours". */
const PROJECT_HOURS = [1, 8] as const;

/** Lines of a long value shown before "show all"; Approve waits until every one was shown. */
const SHOWN_LINES = 12;

/**
 * One pending approval (SPEC §10, issue 15), built to be decided in seconds: one plain sentence
 * first ("claude-code wants to edit package.json (+3 −1)"), the risk in words and colour, who
 * asked and what the session read, then the exact action (the whole diff or the whole command,
 * wrapped, never scrolled inside a box; a long one collapsed behind "+N more lines — show all",
 * and Approve stays disabled until it was shown), the policy's reasoning under "Why am I asked?".
 * On the phone Approve and Deny sit in a bar in the thumb zone; a T3 card there offers Deny and
 * "Deny and HALT", never Approve (the server refuses it anyway); the desktop approves T3 with the
 * typed phrase. Nothing is offered before the card's server signature verified against the pin.
 */
export class OracleCard extends LitElement {
  static override properties = {
    card: { attribute: false },
    check: {},
    screen: {},
    busy: { type: Boolean },
    settling: { type: Boolean },
    problem: {},
    phrase: { state: true },
    message: { state: true },
    opened: { state: true },
    remember: { state: true },
    expired: { state: true },
  };
  static override styles = [
    base,
    css`
      :host {
        display: block;
        margin: 0 0 1rem;
      }
      article {
        border: 2px solid var(--line);
        border-radius: 12px;
        padding: 0.75rem 0.75rem 0;
        background: var(--bg);
      }
      article.T3 {
        border-color: var(--danger);
      }
      .risk {
        display: inline-block;
        padding: 0.2rem 0.65rem;
        border-radius: 999px;
        font-weight: 700;
        font-size: 0.85rem;
        color: #fff;
        background: var(--warn-fill);
      }
      .risk.T3 {
        background: var(--danger);
      }
      .risk.tainted {
        background: var(--ink);
        color: var(--bg);
      }
      h3.sentence {
        font-size: 1.15rem;
        font-weight: 400;
        margin: 0.5rem 0 0.25rem;
        overflow-wrap: anywhere;
      }
      h3.sentence strong {
        font-weight: 700;
      }
      h3.sentence code {
        font-weight: 700;
        background: var(--panel);
        padding: 0 0.2rem;
        border-radius: 4px;
      }
      .who {
        margin: 0 0 0.5rem;
        font-size: 0.9rem;
      }
      .taint {
        border-left: 4px solid var(--danger);
        padding: 0.25rem 0.5rem;
        margin: 0.25rem 0 0.5rem;
        font-size: 0.9rem;
      }
      .taint ul {
        margin: 0.25rem 0 0;
        padding-left: 1.1rem;
      }
      dl {
        margin: 0.5rem 0;
      }
      dt {
        font-weight: 700;
        font-size: 0.85rem;
        color: var(--muted);
        margin-top: 0.5rem;
      }
      dd {
        margin: 0.15rem 0 0;
        overflow-wrap: anywhere;
      }
      pre {
        max-height: none;
        overflow: visible;
      }
      button.more {
        margin-top: 0.25rem;
        width: 100%;
      }
      details {
        margin: 0.5rem 0;
      }
      summary {
        cursor: pointer;
        font-weight: 600;
        min-height: 44px;
        display: flex;
        align-items: center;
      }
      .bar {
        display: flex;
        gap: 0.5rem;
        padding: 0.6rem 0 0.75rem;
        background: var(--bg);
        border-top: 1px solid var(--line);
        margin-top: 0.5rem;
      }
      .bar.phone {
        position: sticky;
        bottom: 0;
        padding-bottom: calc(0.75rem + env(safe-area-inset-bottom));
        z-index: 1;
      }
      .bar button {
        flex: 1 1 0;
        min-height: 52px;
      }
      label.remember-line {
        display: flex;
        gap: 0.5rem;
        align-items: center;
        font-weight: 400;
        min-height: 44px;
      }
      label.remember-line input {
        width: 1.4rem;
        min-height: 1.4rem;
      }
      select {
        width: 100%;
        min-height: 44px;
        font: inherit;
        border: 2px solid var(--line);
        border-radius: 8px;
        background: var(--bg);
        color: var(--ink);
      }
      .hint {
        font-size: 0.85rem;
        margin: 0.25rem 0 0;
      }
      pre.diff > span {
        display: block;
      }
      pre.diff > .add {
        background: var(--add-bg);
        color: var(--add-ink);
      }
      pre.diff > .del {
        background: var(--del-bg);
        color: var(--del-ink);
      }
      pre.diff > .hunk,
      pre.diff > .note {
        color: var(--muted);
      }
    `,
  ];
  declare card: SignedCard;
  declare check: CardCheck;
  declare screen: 'phone' | 'desktop';
  declare busy: boolean;
  /** The card just moved under the person's finger (settle.ts): Approve and Deny wait; Deny and HALT never does. */
  declare settling: boolean;
  declare problem: string;
  declare phrase: string;
  declare message: string;
  /** Long values the person expanded, by label. */
  declare opened: ReadonlySet<string>;
  /** The remembering chosen with Approve: '' (none), 'session', or 'project:<hours>'. */
  declare remember: string;
  /** Past its expiry: the gate refuses any answer now, so none is offered (the gate's sweep removes it soon). */
  declare expired: boolean;
  private expiry: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.check = 'checking';
    this.screen = 'phone';
    this.busy = false;
    this.settling = false;
    this.problem = '';
    this.phrase = '';
    this.message = '';
    this.opened = new Set();
    this.remember = '';
    this.expired = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if ((this.card as SignedCard | undefined) !== undefined) this.armExpiry();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.expiry);
  }

  /** Offers no answer from the card's expiry on, as its countdown says "expired". */
  private armExpiry(): void {
    clearTimeout(this.expiry);
    const left = Date.parse(this.card.expires_at) - Date.now();
    this.expired = !(left > 0);
    if (left > 0) {
      this.expiry = setTimeout(() => {
        this.expired = true;
      }, Math.min(left, 2_147_483_647));
    }
  }

  /** What the card shows, derived once per card (a write's diff is the costly part), not per render. */
  private shown: { readonly card: SignedCard; readonly details: readonly Detail[]; readonly sentence: ReturnType<typeof sentenceOf> } | undefined;

  private derived(): NonNullable<OracleCard['shown']> {
    if (this.shown?.card !== this.card) this.shown = { card: this.card, details: detailsOf(this.card.preview), sentence: sentenceOf(this.card) };
    return this.shown;
  }

  override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('card')) this.armExpiry();
    // Another card in this element: nothing of the last one's answer carries over.
    const before = changed.get('card') as SignedCard | undefined;
    if (changed.has('card') && before !== undefined && before.approval_id !== this.card.approval_id) {
      this.opened = new Set();
      this.phrase = '';
      this.message = '';
      this.remember = '';
    }
  }

  private answer(verdict: 'approve' | 'deny', halt = false): void {
    const detail: Answer = {
      verdict,
      ...(this.message.trim() === '' ? {} : { message: this.message.trim() }),
      ...(verdict === 'approve' && this.card.tier === 'T3' ? { phrase: this.phrase } : {}),
      ...(halt ? { halt: true } : {}),
      ...(verdict === 'approve' ? this.rememberChoice() : {}),
    };
    this.dispatchEvent(new CustomEvent<Answer>('answer', { detail, bubbles: true, composed: true }));
  }

  private rememberChoice(): Pick<Answer, 'remember'> {
    if (this.remember === 'session') return { remember: { scope: 'session', seconds: SESSION_SECONDS } };
    const hours = /^project:(\d+)$/u.exec(this.remember)?.[1];
    return hours === undefined ? {} : { remember: { scope: 'project', seconds: Number(hours) * 3600 } };
  }

  /**
   * Remembering on offer (issue 16): T2 only, never a line into a terminal, only with a project;
   * "this session" where the agent named one; the whole project only at the desktop.
   */
  private rememberOptions() {
    const c = this.card;
    if (c.tier !== 'T2' || c.tool === 'term.write' || c.tool === 'fs.delete' || c.project === null) return nothing;
    const id = `remember-${c.approval_id}`;
    if (this.screen === 'phone') {
      if (c.session === null) return nothing;
      return html`<label class="remember-line" for=${id}><input id=${id} type="checkbox" class="remember" .checked=${this.remember === 'session'} @change=${(e: Event) => { this.remember = (e.target as HTMLInputElement).checked ? 'session' : ''; }} /> Allow exactly this again for the rest of this session</label>`;
    }
    return html`<label for=${id}>When approved, also allow exactly this again</label>
      <select id=${id} class="remember" .value=${this.remember} @change=${(e: Event) => { this.remember = (e.target as HTMLSelectElement).value; }}>
        <option value="">no: ask again next time</option>
        ${c.session === null ? nothing : html`<option value="session">for the rest of this session</option>`}
        ${PROJECT_HOURS.map((h) => html`<option value="project:${h}">for this project, ${h} ${h === 1 ? 'hour' : 'hours'}</option>`)}
      </select>`;
  }

  private marked(text: string) {
    return redactionParts(text).map((p) => (p.redacted ? html`<mark class="redacted" title="a secret, hidden on this card (the action itself holds the real value; a request carrying one is never sent)">${p.text}</mark>` : p.text));
  }

  private lineCount(d: Detail): number {
    return d.diff?.length ?? d.value.split('\n').length;
  }

  /** Values still collapsed: while any is, the whole action has not been shown. */
  private hiddenCount(): number {
    return this.derived().details.filter((d) => d.block && this.lineCount(d) > SHOWN_LINES && !this.opened.has(d.label)).length;
  }

  private value(d: Detail) {
    const total = this.lineCount(d);
    const cut = d.block && total > SHOWN_LINES && !this.opened.has(d.label);
    const more = cut
      ? html`<button class="quiet more" @click=${() => { this.opened = new Set([...this.opened, d.label]); }}>+${total - SHOWN_LINES} more lines — show all</button>`
      : nothing;
    if (d.diff !== undefined) {
      const lines = cut ? d.diff.slice(0, SHOWN_LINES) : d.diff;
      return html`<pre class="diff">${lines.map((line) => html`<span class=${line.kind}>${this.marked(line.text)}</span>`)}</pre>${more}`;
    }
    const text = cut ? d.value.split('\n').slice(0, SHOWN_LINES).join('\n') : d.value;
    return d.block ? html`<pre>${this.marked(text)}</pre>${more}` : html`<span>${this.marked(text)}</span>`;
  }

  private bar() {
    const c = this.card;
    if (this.expired) return html`<p class="error expired" role="status">This request expired unanswered: the agent was told, and it can no longer be approved or denied.</p>`;
    if (this.check === 'checking') return html`<p class="muted">Checking the server’s signature on this card…</p>`;
    if (this.check === 'key-unavailable') return html`<p class="error" role="alert">The server key could not be checked yet, so nothing is offered. Retrying…</p>`;
    if (this.check === 'bad-signature') return html`<p class="error" role="alert">This card’s signature does not verify against the pinned server key. Nothing is offered.</p>`;
    const id = `msg-${c.approval_id}`;
    const note = html`<details class="note">
      <summary>Add a message for the agent</summary>
      <label for=${id}>Sent with a denial</label>
      <input id=${id} .value=${this.message} @input=${(e: Event) => { this.message = (e.target as HTMLInputElement).value; }} maxlength="2000" autocomplete="off" />
    </details>`;
    const sticky = this.screen === 'phone' ? 'bar phone' : 'bar';
    if (c.tier === 'T3' && this.screen === 'phone') {
      return html`${note}
        <div class="${sticky}" role="group" aria-label="Answer">
          <button class="quiet deny" ?disabled=${this.busy || this.settling} @click=${() => { this.answer('deny'); }}>Deny</button>
          <button class="danger deny-halt" ?disabled=${this.busy} @click=${() => { this.answer('deny', true); }}>Deny and HALT</button>
        </div>
        <p class="hint muted">Approve at the computer: T3 is approved only there, with a typed phrase.</p>`;
    }
    const hidden = this.hiddenCount();
    const phraseWanted = confirmationPhrase(c);
    const phrase =
      c.tier === 'T3'
        ? html`<label for="phrase-${c.approval_id}">Type <code>${phraseWanted}</code> to approve</label>
            <input id="phrase-${c.approval_id}" class="phrase" .value=${this.phrase} @input=${(e: Event) => { this.phrase = (e.target as HTMLInputElement).value; }} autocomplete="off" spellcheck="false" />`
        : nothing;
    return html`${phrase}${this.rememberOptions()}${note}
      <div class="${sticky}" role="group" aria-label="Answer">
        <button class="quiet deny" ?disabled=${this.busy || this.settling} @click=${() => { this.answer('deny'); }}>Deny</button>
        <button class="primary approve" ?disabled=${this.busy || this.settling || hidden > 0 || (c.tier === 'T3' && this.phrase !== phraseWanted)} @click=${() => { this.answer('approve'); }}>Approve</button>
      </div>
      ${hidden > 0 ? html`<p class="hint muted">Show the whole action before approving.</p>` : nothing}`;
  }

  override render() {
    const c = this.card;
    const { sentence: s, details } = this.derived();
    const read = readSources(c.provenance);
    return html`<article class=${c.tier} aria-labelledby="h-${c.approval_id}">
      <div class="row">
        <span class="risk ${c.tier}">${riskWords(c.tier)}</span>
        ${read.length > 0 ? html`<span class="risk tainted">Read untrusted content</span>` : nothing}
        <oracle-countdown .at=${c.expires_at}></oracle-countdown>
      </div>
      <h3 class="sentence" id="h-${c.approval_id}">${s.who} wants to <strong>${s.verb}</strong> ${s.code ? html`<code>${this.marked(s.object)}</code>` : html`<strong>${this.marked(s.object)}</strong>`}${s.note === '' ? nothing : html` ${s.note}`}</h3>
      <p class="who muted">${c.tier} · ${c.tool}${c.project === null ? '' : ` · in ${c.project}`}${c.session === null ? '' : ` · session ${c.session}`}</p>
      ${read.length > 0
        ? html`<div class="taint"><strong>This session read content it should not trust:</strong><ul>${read.map((p) => html`<li>${p}</li>`)}</ul></div>`
        : nothing}
      <dl>
        ${details.filter((d) => d.minor !== true).map((d) => html`<dt>${d.label}</dt><dd>${this.value(d)}</dd>`)}
      </dl>
      <details class="why">
        <summary>Why am I asked?</summary>
        <p>${c.reason}</p>
        ${details.some((d) => d.minor === true) ? html`<dl>${details.filter((d) => d.minor === true).map((d) => html`<dt>${d.label}</dt><dd>${this.value(d)}</dd>`)}</dl>` : nothing}
      </details>
      ${this.problem === '' ? nothing : html`<p class="error" role="alert">${this.problem}</p>`}
      ${this.bar()}
    </article>`;
  }
}
customElements.define('oracle-card', OracleCard);
