import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic-file.js';
import { parseHomeJson } from '../home-file-error.js';

/** One device's Web Push subscription (the browser's PushSubscription, as its JSON gives it). */
export interface PushTarget {
  readonly endpoint: string;
  /** The browser's P-256 public key (65 bytes, uncompressed), base64url. */
  readonly p256dh: string;
  /** The browser's 16-byte auth secret, base64url. */
  readonly auth: string;
  readonly created_at: string;
}

/** The gate's VAPID key pair (RFC 8292), base64url as web-push writes it. */
export interface VapidKeys {
  readonly publicKey: string;
  readonly privateKey: string;
}

interface PushFile {
  readonly v: 1;
  readonly vapid: VapidKeys;
  readonly devices: Readonly<Record<string, PushTarget>>;
}

export const PUSH_FILE = 'push.json';
const FIX = 'remove it to have new VAPID keys made on the next start (every phone then turns notifications on again)';

const isTarget = (v: unknown): v is PushTarget => {
  const t = v as Record<string, unknown> | null;
  return typeof t === 'object' && t !== null && typeof t['endpoint'] === 'string' && typeof t['p256dh'] === 'string' && typeof t['auth'] === 'string' && typeof t['created_at'] === 'string';
};
const isPushFile = (v: unknown): v is PushFile => {
  const f = v as Record<string, unknown> | null;
  if (typeof f !== 'object' || f === null || f['v'] !== 1) return false;
  const vapid = f['vapid'] as Record<string, unknown> | null;
  const devices = f['devices'];
  return typeof vapid === 'object' && vapid !== null && typeof vapid['publicKey'] === 'string' && typeof vapid['privateKey'] === 'string' && typeof devices === 'object' && devices !== null && Object.values(devices).every(isTarget);
};

/**
 * `<home>/data/push.json` (0600, replaced atomically): the gate's VAPID keys, made once, and the
 * one Web Push subscription of each paired device that turned notifications on. A subscription
 * belongs to its device: it is replaced when the device subscribes again and removed when the
 * device is revoked or its push service says it is gone. A corrupt file stops the start, named.
 */
export class PushStore {
  private state: PushFile;

  private constructor(
    readonly path: string,
    state: PushFile,
  ) {
    this.state = state;
  }

  /** Opens the file, or makes it with new VAPID keys from `makeKeys`. */
  static async open(dataDir: string, makeKeys: () => Promise<VapidKeys>): Promise<PushStore> {
    const path = join(dataDir, PUSH_FILE);
    if (existsSync(path)) return new PushStore(path, parseHomeJson(path, readFileSync(path, 'utf8'), isPushFile, FIX));
    const store = new PushStore(path, { v: 1, vapid: await makeKeys(), devices: {} });
    store.save();
    return store;
  }

  get vapid(): VapidKeys {
    return this.state.vapid;
  }

  get(deviceId: string): PushTarget | undefined {
    return this.state.devices[deviceId];
  }

  entries(): readonly (readonly [string, PushTarget])[] {
    return Object.entries(this.state.devices);
  }

  set(deviceId: string, target: PushTarget): void {
    this.state = { ...this.state, devices: { ...this.state.devices, [deviceId]: target } };
    this.save();
  }

  /** True when there was one to remove. */
  remove(deviceId: string): boolean {
    if (this.state.devices[deviceId] === undefined) return false;
    const { [deviceId]: _gone, ...rest } = this.state.devices;
    this.state = { ...this.state, devices: rest };
    this.save();
    return true;
  }

  private save(): void {
    writeFileAtomic(this.path, `${JSON.stringify(this.state, null, 2)}\n`);
  }
}
