// Run inside a network namespace: advertise like `oracle serve --lan` does, until killed.
import { advertise } from '../../server/adapters/mdns.js';

const [port, keyHint] = process.argv.slice(2);
advertise({
  name: 'ORACLE on testbox',
  host: 'testbox.local',
  port: Number(port),
  keyHint: keyHint ?? '',
  report: (line) => {
    process.stdout.write(`${line}\n`);
  },
});
setInterval(() => undefined, 1000);
