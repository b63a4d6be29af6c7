import { LitElement, html } from 'lit';
import { base } from './styles.js';

/** "expires in 4:12", refreshed every second; "expired" after. `at` is an ISO date or epoch ms. */
export class OracleCountdown extends LitElement {
  static override properties = { at: {} };
  static override styles = [base];
  declare at: string | number;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.at = 0;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.timer = setInterval(() => {
      this.requestUpdate();
    }, 1000);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearInterval(this.timer);
  }

  override render() {
    const end = typeof this.at === 'number' ? this.at : Date.parse(this.at);
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    if (left === 0) return html`<span class="error">expired</span>`;
    const text = `${String(Math.floor(left / 60))}:${String(left % 60).padStart(2, '0')}`;
    return html`<span class="muted">expires in <span class="time">${text}</span></span>`;
  }
}
customElements.define('oracle-countdown', OracleCountdown);
