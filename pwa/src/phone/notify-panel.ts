import { LitElement, html, css, nothing } from 'lit';
import type { DeviceClient } from '../lib/device-client.js';
import { pushState, turnOff, turnOn, type PushState } from '../lib/push.js';
import { base } from '../ui/styles.js';

/**
 * Notifications on this phone (issue 15): offered right after pairing, off until the person turns
 * them on, and honest about the path: the phone vendor's push service, the internet on both ends,
 * and only "N requests waiting" and the tier in each message.
 */
export class OracleNotify extends LitElement {
  static override properties = { client: { attribute: false }, state: { state: true }, busy: { state: true } };
  static override styles = [
    base,
    css`
      section {
        border: 2px solid var(--accent);
        border-radius: 10px;
        padding: 0.75rem;
        margin: 0.5rem 0 1rem;
        background: var(--panel);
      }
      section.on {
        border-color: var(--line);
      }
      p {
        margin: 0.25rem 0 0.5rem;
      }
    `,
  ];
  declare client: DeviceClient | undefined;
  declare state: PushState | undefined;
  declare busy: boolean;

  constructor() {
    super();
    this.state = undefined;
    this.busy = false;
  }

  override updated(changed: Map<string, unknown>): void {
    if (changed.has('client') && this.client !== undefined) void this.read();
  }

  private async read(): Promise<void> {
    if (this.client !== undefined) this.state = await pushState(this.client);
  }

  private async toggle(on: boolean): Promise<void> {
    const client = this.client;
    if (client === undefined) return;
    this.busy = true;
    try {
      this.state = on ? await turnOn(client) : await turnOff(client);
    } finally {
      this.busy = false;
    }
  }

  override render() {
    const s = this.state;
    if (s === undefined) return nothing;
    const path = html`Messages go through your phone vendor’s push service, so both this phone and the computer need the internet; each says only how many requests wait and their risk, never what they are.`;
    switch (s.kind) {
      case 'unsupported':
        return html`<section class="notify off"><p><strong>No notifications here:</strong> ${s.why}. Keep ORACLE open to see requests.</p></section>`;
      case 'blocked':
        return html`<section class="notify off"><p><strong>Notifications are blocked</strong> for this site in the browser’s settings. Allow them there to be told when an agent needs you.</p></section>`;
      case 'on':
        return html`<section class="notify on"><p><strong>Notifications: on.</strong> This phone is told when an agent needs you, a request is about to expire, or the gate halts.</p><button class="quiet push-off" ?disabled=${this.busy} @click=${() => void this.toggle(false)}>Turn off</button></section>`;
      case 'off':
      case 'failed':
        return html`<section class="notify off">
          <p><strong>Get told when an agent needs you.</strong> ${path}</p>
          ${s.kind === 'failed' ? html`<p class="error" role="alert">${s.why}</p>` : nothing}
          <button class="primary push-on" ?disabled=${this.busy} @click=${() => void this.toggle(true)}>Turn on notifications</button>
        </section>`;
    }
  }
}
customElements.define('oracle-notify', OracleNotify);
