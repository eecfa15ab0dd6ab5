// `npm start`: builds dist/ only when its inputs changed since the last build
// (scripts/build-fingerprint.js, the check the tests use), then becomes `tariff serve` with the
// arguments given (`npm start -- --config-file /etc/cloudkitty/cloudkitty.conf`). It replaces
// itself (process.execve: same pid) rather than starting a child, and package.json runs it with
// `exec`: npm forwards SIGTERM and SIGINT to its script's process, which is then the server
// itself, so `kill <npm's pid>` drains and stops the server instead of orphaning it.
import { fileURLToPath } from 'node:url';
import { buildAndRecord, buildFingerprint, distIsFresh } from './build-fingerprint.js';

const fingerprint = buildFingerprint();
if (!distIsFresh(fingerprint)) {
  process.stderr.write('npm start: dist/ is older than its sources; building (npm run build)\n');
  buildAndRecord(fingerprint);
}
const tariff = fileURLToPath(new URL('../bin/tariff.js', import.meta.url));
process.execve(process.execPath, [process.execPath, tariff, 'serve', ...process.argv.slice(2)], process.env);
