import { LitElement, html } from 'lit';
import { base } from '../ui/styles.js';

/**
 * The local CA for the phone (SPEC §9): browsers give a service worker (offline shell, install)
 * only to a trusted origin. Download, compare the fingerprint, and the steps per platform.
 */
export class OracleCaPanel extends LitElement {
  static override properties = { fingerprint: {} };
  static override styles = [base];
  declare fingerprint: string;

  constructor() {
    super();
    this.fingerprint = '';
  }

  override render() {
    return html`<section class="panel" aria-labelledby="ca-h">
      <h2 id="ca-h">Trust this gate on the phone (optional)</h2>
      <p>Pairing works without it. Installing the gate’s local CA lets the phone keep an offline shell and install the app.</p>
      <p><a href="/ca.crt" download="oracle-local-ca.crt">Download the CA certificate</a> (open this page’s address on the phone, or send the file to it).</p>
      <p>SHA-256 fingerprint — compare it on the phone before trusting:</p>
      <pre class="ca-fingerprint">${this.fingerprint}</pre>
      <h3>iPhone / iPad</h3>
      <ol>
        <li>Open the downloaded file; iOS says “Profile Downloaded”.</li>
        <li>Settings → General → VPN &amp; Device Management → the ORACLE profile → Install.</li>
        <li>Settings → General → About → Certificate Trust Settings → turn on full trust for the ORACLE CA.</li>
      </ol>
      <h3>Android</h3>
      <ol>
        <li>Settings → Security &amp; privacy → More security settings → Encryption &amp; credentials → Install a certificate → CA certificate.</li>
        <li>Choose the downloaded file and confirm; check the fingerprint under Trusted credentials → User.</li>
        <li>Reopen the ORACLE page in Chrome.</li>
      </ol>
      <p class="muted">The CA is made for this install only. Remove it from the phone if you uninstall ORACLE.</p>
    </section>`;
  }
}
customElements.define('oracle-ca-panel', OracleCaPanel);
