import { css } from 'lit';

/**
 * One look for both screens: system fonts, 16 px base, touch targets of at least 44 px, colours
 * with at least 4.5:1 contrast on their background, a visible focus ring, no inline styles (the
 * CSP forbids them; lit adopts these sheets).
 */
export const base = css`
  :host {
    display: block;
    font: 16px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
    color: var(--ink);
    color-scheme: light dark;
    --ink: #1b1f24;
    --muted: #4a5560;
    --line: #c9d1d9;
    --bg: #ffffff;
    --panel: #f4f6f8;
    --accent: #0b5cad;
    --accent-ink: #0b5cad;
    --danger: #a4161a;
    --danger-ink: #a4161a;
    --ok: #1a6b36;
    --warn: #7a4a00;
    --warn-fill: #8a4b00;
    --warn-bg: #fff4d6;
    --danger-bg: #fde2e1;
    --add-bg: #e6ffec;
    --add-ink: #055d20;
    --del-bg: #ffebe9;
    --del-ink: #82071e;
    --focus: #1b1f24;
  }
  /* Dark mode follows the system; every pair below keeps at least 4.5:1. */
  @media (prefers-color-scheme: dark) {
    :host {
      --ink: #e6edf3;
      --muted: #a9b6c3;
      --line: #3d4650;
      --bg: #161b22;
      --panel: #0d1117;
      --accent: #1f6feb;
      --accent-ink: #79b8ff;
      --danger: #b62324;
      --danger-ink: #ff8e87;
      --ok: #56d364;
      --warn: #e3b341;
      --warn-fill: #8a4b00;
      --warn-bg: #3b2a06;
      --danger-bg: #4a1519;
      --add-bg: #12361f;
      --add-ink: #7ee2a8;
      --del-bg: #4a1519;
      --del-ink: #ffa198;
      --focus: #e6edf3;
    }
  }
  * {
    box-sizing: border-box;
  }
  h1,
  h2,
  h3 {
    line-height: 1.2;
    margin: 0 0 0.5rem;
  }
  h1 {
    font-size: 1.35rem;
  }
  h2 {
    font-size: 1.15rem;
  }
  h3 {
    font-size: 1rem;
  }
  p {
    margin: 0.25rem 0 0.75rem;
  }
  button,
  input,
  select,
  textarea {
    font: inherit;
  }
  button {
    min-height: 44px;
    min-width: 44px;
    padding: 0.5rem 1rem;
    border-radius: 8px;
    border: 2px solid var(--accent);
    background: var(--bg);
    color: var(--accent-ink);
    font-weight: 600;
    cursor: pointer;
  }
  button.primary {
    background: var(--accent);
    color: #fff;
  }
  button.danger {
    border-color: var(--danger);
    background: var(--danger);
    color: #fff;
  }
  button.quiet {
    border-color: var(--line);
    color: var(--ink);
  }
  button:disabled {
    opacity: 0.55;
    cursor: not-allowed;
  }
  :focus-visible {
    outline: 3px solid var(--focus);
    outline-offset: 2px;
    box-shadow: 0 0 0 6px #f5b700;
  }
  label {
    display: block;
    font-weight: 600;
    margin: 0.5rem 0 0.25rem;
  }
  input,
  textarea {
    width: 100%;
    min-height: 44px;
    padding: 0.5rem;
    border: 2px solid var(--line);
    border-radius: 8px;
    background: var(--bg);
    color: var(--ink);
  }
  pre {
    margin: 0;
    padding: 0.5rem;
    background: var(--panel);
    border: 1px solid var(--line);
    border-radius: 6px;
    white-space: pre-wrap;
    overflow-wrap: anywhere;
    font: 0.85rem/1.4 ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace;
    max-height: 16rem;
    overflow: auto;
  }
  /* A terminal's screen: its own line breaks, scrolled sideways rather than re-wrapped. */
  pre.screen {
    white-space: pre;
    overflow-wrap: normal;
    max-height: 28rem;
  }
  code {
    overflow-wrap: anywhere;
    word-break: break-all;
  }
  .muted {
    color: var(--muted);
  }
  .error {
    color: var(--danger-ink);
    font-weight: 600;
  }
  .ok {
    color: var(--ok);
    font-weight: 600;
  }
  .row {
    display: flex;
    gap: 0.5rem;
    flex-wrap: wrap;
    align-items: center;
  }
  .panel {
    background: var(--bg);
    border: 1px solid var(--line);
    border-radius: 10px;
    padding: 1rem;
    margin: 0 0 1rem;
  }
  .badge {
    display: inline-block;
    padding: 0.1rem 0.5rem;
    border-radius: 999px;
    font-size: 0.8rem;
    font-weight: 700;
    border: 1px solid currentColor;
  }
  .t2 {
    color: var(--warn);
  }
  .t3 {
    color: var(--danger-ink);
  }
  mark.redacted {
    background: var(--del-bg);
    color: var(--del-ink);
    font-weight: 700;
    border-radius: 3px;
    padding: 0 2px;
  }
  ul.plain {
    list-style: none;
    padding: 0;
    margin: 0;
  }
  ul.plain > li {
    padding: 0.5rem 0;
    border-bottom: 1px solid var(--line);
    overflow-wrap: anywhere;
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
`;
