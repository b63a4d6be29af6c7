import { Bonjour, type Service } from 'bonjour-service';

export interface Advertised {
  /** The name in use after any conflict (`ORACLE on desk (2)`). */
  readonly name: () => string;
  stop(): Promise<void>;
}

/**
 * mDNS with `--lan` (SPEC §9): `_oracle._tcp` at `<host>.local` with the port and a short hash
 * of the key pin; never a secret. A name already on the network is reported and a suffixed one
 * tried; socket errors are reported, not swallowed.
 */
export function advertise(options: { name: string; host: string; port: number; keyHint: string; report: (line: string) => void }): Advertised {
  const bonjour = new Bonjour({}, (e: unknown) => {
    options.report(`mDNS error: ${e instanceof Error ? e.message : String(e)}`);
  });
  let current = options.name;
  let service: Service | undefined;
  const publish = (name: string, attempt: number): void => {
    current = name;
    const s = bonjour.publish({ name, type: 'oracle', protocol: 'tcp', port: options.port, host: options.host, txt: { v: '1', k: options.keyHint } });
    service = s;
    s.on('up', () => {
      options.report(`mDNS: advertising "${name}" as _oracle._tcp on ${options.host}:${String(options.port)}`);
    });
    s.on('error', (e: unknown) => {
      options.report(`mDNS error: ${e instanceof Error ? e.message : String(e)}`);
    });
    // The library stops a service whose name another host answers for; notice and rename.
    setTimeout(() => {
      if (s.activated || attempt >= 5) {
        if (!s.activated) options.report(`mDNS: gave up after ${String(attempt)} name conflicts`);
        return;
      }
      options.report(`mDNS: the name "${name}" is already in use on the network; trying another`);
      publish(`${options.name} (${String(attempt + 1)})`, attempt + 1);
    }, 3000).unref();
  };
  publish(options.name, 1);
  return {
    name: () => current,
    stop: () =>
      new Promise<void>((resolve) => {
        service?.stop();
        bonjour.unpublishAll(() => {
          bonjour.destroy(() => {
            resolve();
          });
        });
      }),
  };
}
