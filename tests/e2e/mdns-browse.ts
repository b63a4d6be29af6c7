// Run inside the other namespace: find _oracle._tcp and print what was advertised.
import { Bonjour } from 'bonjour-service';

const bonjour = new Bonjour();
const timer = setTimeout(() => {
  process.stdout.write(`${JSON.stringify({ found: false })}\n`);
  process.exit(2);
}, 8000);
bonjour.find({ type: 'oracle' }, (service) => {
  clearTimeout(timer);
  process.stdout.write(`${JSON.stringify({ found: true, name: service.name, host: service.host, port: service.port, txt: service.txt as unknown })}\n`);
  process.exit(0);
});
