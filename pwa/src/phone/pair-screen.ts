import { browserDeviceName } from '../lib/device-name.js';
import { LitElement, html, nothing, css } from 'lit';
import { PhoneSession } from '../../../shared/pairing/phone.js';
import { toBase64Url } from '../../../shared/pairing/bytes.js';
import { validDeviceName } from '../../../shared/pairing/wire.js';
import { saveDevice, type StoredDevice } from '../lib/device-store.js';
import { base } from '../ui/styles.js';
import { originTransport, pairingProblem } from './transport.js';

type Step = 'form' | 'working' | 'compare' | 'done';

/**
 * Pairing (SPEC §9a) from the QR link (its fragment carries the pin k and the secret s; the page
 * removes it from the address bar at once) or, without a QR, the typed 8-digit code. The phone
 * checks the server key against k, shows the comparison code to match on the desktop, waits for
 * the desktop's confirmation, then stores its non-extractable key, token and the pin.
 */
export class OraclePair extends LitElement {
  static override properties = { link: {}, step: { state: true }, problem: { state: true }, comparison: { state: true }, name: { state: true }, code: { state: true } };
  static override styles = [
    base,
    css`
      .comparison strong {
        font: 700 2.2rem/1.2 ui-monospace, Menlo, Consolas, monospace;
        letter-spacing: 0.2em;
      }
    `,
  ];
  /** The QR URL this page was opened with, if any. */
  declare link: string;
  declare step: Step;
  declare problem: string;
  declare comparison: string;
  declare name: string;
  declare code: string;

  constructor() {
    super();
    this.link = '';
    this.step = 'form';
    this.problem = '';
    this.comparison = '';
    this.name = browserDeviceName(navigator.userAgent);
    this.code = '';
  }

  private async pair(e: Event): Promise<void> {
    e.preventDefault();
    this.problem = '';
    if (!validDeviceName(this.name)) {
      this.problem = 'Give this phone a name of 1 to 64 letters, digits or spaces.';
      return;
    }
    let session: PhoneSession;
    if (this.link !== '') {
      try {
        session = PhoneSession.fromQr(this.link, originTransport);
      } catch {
        this.problem = 'This pairing link is damaged. Start a new pairing on the desktop and scan again.';
        return;
      }
    } else {
      if (!/^[0-9]{8}$/u.test(this.code)) {
        this.problem = 'The pairing code is the 8 digits shown on the desktop.';
        return;
      }
      session = PhoneSession.fromCode(this.code, originTransport);
    }
    this.step = 'working';
    try {
      await session.doHello();
      this.comparison = await session.doClaim(this.name);
      this.step = 'compare';
      void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('h1.step')?.focus());
      const paired = await session.doResult(20, 12);
      const device: StoredDevice = { deviceId: paired.deviceId, token: paired.token, name: this.name, key: paired.deviceKey.privateKey, k: toBase64Url(paired.k), pairedAt: new Date().toISOString(), counter: 0 };
      await saveDevice(device);
      this.step = 'done';
      this.dispatchEvent(new CustomEvent('paired', { detail: device, bubbles: true, composed: true }));
    } catch (err) {
      this.step = 'form';
      this.problem = pairingProblem(err);
    }
  }

  override render() {
    if (this.step === 'compare') {
      return html`<section class="panel" aria-live="polite">
        <h1 tabindex="-1" class="step">Compare this code</h1>
        <p>The desktop asks to pair <strong>${this.name}</strong>. Confirm there only if it shows the same code:</p>
        <p class="comparison">Comparison code: <strong>${this.comparison}</strong></p>
        ${this.link === '' ? html`<p class="muted">You typed the code instead of scanning: matching these digits is what stops someone in the middle.</p>` : nothing}
        <p class="muted">Waiting for the desktop…</p>
      </section>`;
    }
    const qr = this.link !== '';
    return html`<section class="panel">
      <h1>Pair this phone with ORACLE</h1>
      <p>${qr ? 'You opened a pairing link from the desktop. Name this phone, then pair.' : 'Scan the QR code shown on the desktop, or type the 8-digit code it shows.'}</p>
      <form @submit=${(e: Event) => void this.pair(e)}>
        <label for="name">Name of this phone</label>
        <input id="name" .value=${this.name} @input=${(e: Event) => { this.name = (e.target as HTMLInputElement).value; }} maxlength="64" autocomplete="off" required />
        ${qr
          ? nothing
          : html`<label for="code">Pairing code</label>
              <input id="code" inputmode="numeric" pattern="[0-9]{8}" maxlength="8" .value=${this.code} @input=${(e: Event) => { this.code = (e.target as HTMLInputElement).value.trim(); }} autocomplete="one-time-code" />`}
        <p></p>
        <button class="primary" type="submit" ?disabled=${this.step === 'working'}>${this.step === 'working' ? 'Pairing…' : 'Pair'}</button>
      </form>
      ${this.problem === '' ? nothing : html`<p class="error" role="alert">${this.problem}</p>`}
    </section>`;
  }
}
customElements.define('oracle-pair', OraclePair);
