/**
 * What a paired phone keeps (SPEC §9, §9a), in IndexedDB: the device id and token, the device key
 * D as a non-extractable CryptoKey (structured clone keeps it usable and never exportable), the
 * pinned k = SHA-256(server SPKI), and the request counter, which only ever grows.
 */
export interface StoredDevice {
  readonly deviceId: string;
  readonly token: string;
  readonly name: string;
  readonly key: CryptoKey;
  /** base64url of SHA-256 of the server's SPKI, pinned at pairing. */
  readonly k: string;
  readonly pairedAt: string;
  counter: number;
}

const DB = 'oracle';
const STORE = 'device';
const ID = 'this';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => {
      resolve(req.result);
    };
    req.onerror = () => {
      reject(req.error ?? new Error('IndexedDB refused to open'));
    };
  });
}

async function run<T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = act(tx.objectStore(STORE));
      tx.oncomplete = () => {
        resolve(req.result as T);
      };
      tx.onerror = () => {
        reject(tx.error ?? new Error('IndexedDB transaction failed'));
      };
    });
  } finally {
    db.close();
  }
}

export const loadDevice = (): Promise<StoredDevice | undefined> => run<StoredDevice | undefined>('readonly', (s) => s.get(ID));
export const saveDevice = (device: StoredDevice): Promise<unknown> => run('readwrite', (s) => s.put(device, ID));
export const forgetDevice = (): Promise<unknown> => run('readwrite', (s) => s.delete(ID));
