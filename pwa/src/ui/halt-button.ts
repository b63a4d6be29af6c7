import { LitElement, html, css } from 'lit';
import { base } from './styles.js';

/**
 * HALT (SPEC §8, §10): always one tap away, two steps to confirm. The first tap arms it and moves
 * focus to the confirm button; the second sends `halt`. Cancel, or 10 s, disarms it.
 */
export class OracleHalt extends LitElement {
  static override properties = { armed: { state: true }, halted: { type: Boolean }, busy: { type: Boolean } };
  static override styles = [
    base,
    css`
      :host {
        position: sticky;
        top: 0;
        z-index: 10;
        background: var(--bg);
        padding: 0.5rem 0;
      }
      button.halt {
        width: 100%;
        font-size: 1.1rem;
        letter-spacing: 0.05em;
      }
      .halted {
        background: var(--danger);
        color: #fff;
        border-radius: 8px;
        padding: 0.75rem;
        font-weight: 700;
        text-align: center;
      }
    `,
  ];
  declare armed: boolean;
  declare halted: boolean;
  declare busy: boolean;
  private disarm: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.armed = false;
    this.halted = false;
    this.busy = false;
  }

  private arm(): void {
    this.armed = true;
    clearTimeout(this.disarm);
    this.disarm = setTimeout(() => {
      this.armed = false;
    }, 10_000);
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLButtonElement>('button.confirm')?.focus());
  }

  private confirm(): void {
    clearTimeout(this.disarm);
    this.disarmNow();
    this.dispatchEvent(new CustomEvent('halt', { bubbles: true, composed: true }));
  }

  /** Back to one button, with the focus on it (never dropped to the page). */
  private disarmNow(): void {
    this.armed = false;
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLButtonElement>('button.halt')?.focus());
  }

  override render() {
    if (this.halted) return html`<div class="halted" role="status">HALTED — every agent action is denied</div>`;
    if (!this.armed) return html`<button class="danger halt" ?disabled=${this.busy} @click=${() => { this.arm(); }}>HALT</button>`;
    return html`<div class="row" role="group" aria-label="Confirm HALT">
      <button class="danger halt confirm" @click=${() => { this.confirm(); }}>Confirm HALT: stop everything now</button>
      <button class="quiet" @click=${() => { this.disarmNow(); }}>Cancel</button>
    </div>`;
  }
}
customElements.define('oracle-halt', OracleHalt);
