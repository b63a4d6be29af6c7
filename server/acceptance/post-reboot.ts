import { userSystemctl, type Systemctl } from '../adapters/systemctl.js';
import { UNIT_NAME } from '../core/service/systemd-unit.js';
import { evidence } from './probe-kit.js';
import { itemResult, OUTCOME, type Evidence, type ItemResult } from './model.js';

/**
 * Item 6, post-reboot (seed 000 D-O5-6 item 6): after a reboot the gate must come back by itself,
 * or every agent's question has nowhere to go. What this battery can check without rebooting is
 * the mechanism that brings it back: a service manager that answers (systemd's user instance on
 * Linux), ORACLE's login service enabled in it (`oracle service install`), restarted on failure,
 * running the gate, and a gate it runs now. No service manager here: UNSUPPORTED-ON-HOST with the
 * reason. One that answers without the service: a FAIL that says what to run.
 */
export async function postRebootItem(platform: NodeJS.Platform = process.platform, systemctl: Systemctl = userSystemctl): Promise<ItemResult> {
  const found: Evidence[] = [];
  if (platform !== 'linux') {
    found.push(evidence('service manager', 'look for the login service', `this battery checks it through systemd on Linux; on ${platform} run \`oracle service status\``, OUTCOME.missing));
    return itemResult('post-reboot', found, '');
  }
  const manager = await systemctl(['show-environment']);
  if (manager.code !== 0) {
    found.push(evidence('service manager', '`systemctl --user show-environment`', `no systemd user manager answers here (${firstLine(manager.out)}): nothing on this host would start the gate after a reboot`, OUTCOME.missing));
    return itemResult('post-reboot', found, '');
  }
  found.push(evidence('service manager', '`systemctl --user show-environment`', 'the systemd user manager answers', OUTCOME.held));
  const enabled = await systemctl(['is-enabled', UNIT_NAME]);
  const isEnabled = enabled.out.trim() === 'enabled';
  found.push(evidence('login service', `\`systemctl --user is-enabled ${UNIT_NAME}\``, isEnabled ? 'enabled: it starts with the session' : `${firstLine(enabled.out) || `exit ${String(enabled.code)}`}: after a reboot no gate starts; run \`oracle service install\``, isEnabled ? OUTCOME.held : OUTCOME.broken));
  if (!isEnabled) return itemResult('post-reboot', found, '');
  const unit = await systemctl(['cat', UNIT_NAME]);
  const restarts = /^Restart=(on-failure|always)$/mu.test(unit.out);
  const serves = /^ExecStart=.*\bserve\b/mu.test(unit.out);
  found.push(evidence('unit', `\`systemctl --user cat ${UNIT_NAME}\``, `${serves ? 'runs `oracle serve`' : 'does not run `oracle serve`'}; ${restarts ? 'restarted on failure' : 'not restarted on failure'}`, restarts && serves ? OUTCOME.held : OUTCOME.broken));
  const active = await systemctl(['is-active', UNIT_NAME]);
  found.push(evidence('gate running', `\`systemctl --user is-active ${UNIT_NAME}\``, firstLine(active.out) || `exit ${String(active.code)}`, active.out.trim() === 'active' ? OUTCOME.held : OUTCOME.broken));
  return itemResult('post-reboot', found, `${UNIT_NAME} is enabled in the systemd user manager, runs the gate, restarts on failure and runs now: it comes back after a reboot`);
}

function firstLine(text: string): string {
  return text.split('\n')[0]?.trim().slice(0, 200) ?? '';
}
