import { describe, expect, it } from 'vitest';
import { activeState, enabledState } from './systemctl-answer.js';

describe('reading what systemctl answered (oracle service status)', () => {
  it('takes a documented state as the state, whatever the exit status', () => {
    expect(activeState({ code: 0, out: 'active' })).toEqual({ known: true, state: 'active' });
    expect(activeState({ code: 3, out: 'inactive\n' })).toEqual({ known: true, state: 'inactive' });
    expect(enabledState({ code: 1, out: 'disabled' })).toEqual({ known: true, state: 'disabled' });
  });

  it('never shows an error message or silence as a state: the manager could not be asked, and why', () => {
    expect(activeState({ code: 1, out: 'Failed to connect to bus: No medium found' })).toEqual({ known: false, reason: 'Failed to connect to bus: No medium found' });
    expect(activeState({ code: 127, out: '' })).toEqual({ known: false, reason: 'systemctl exited with status 127 and said nothing' });
    expect(enabledState({ code: 1, out: 'Failed to get unit file state for oracle.service: No such file or directory' })).toMatchObject({ known: false });
    // A state word inside an error is not the state.
    expect(activeState({ code: 1, out: 'inactive\nFailed to connect to bus' })).toEqual({ known: false, reason: 'inactive; Failed to connect to bus' });
  });
});
