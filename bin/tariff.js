#!/usr/bin/env node
// The `tariff` command; the compiled TypeScript lives in dist/ (`npm run build`; built into the
// release artifact, see docs/operators/install.md).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// package.json's "engines": Node.js 24.11+ or 26+ (node:sqlite, --permission, process.execve). An
// older node (the `node` first on the PATH when this file is run directly) stops here with one
// line, before dist/ is loaded.
const [major, minor] = process.versions.node.split('.').map(Number);
if (!(major >= 26 || (major === 24 && minor >= 11))) {
  process.stderr.write(
    `tariff: Node.js 24.11 or newer is needed (24 LTS or 26 LTS); this is ${process.version} (${process.execPath}). ` +
      'Run it through npm (npm start, npx tariff), which uses the Node scripts/install.sh installed, or put a supported node first on the PATH.\n',
  );
  process.exit(1);
}

// The Node options `tariff serve` runs with, whoever starts it (systemd, npm start, a shell):
// --max-semi-space-size=64: a larger young generation; measured, it cut the CPU of listing 10,000
// mappings by about a quarter (bench/README.md). --expose-gc: a full collection after a bulk
// price-list operation gives its garbage back (src/kernel/memory.ts). When they are missing, the
// process replaces itself (process.execve: same pid, same stdio, so signals and the exit code are
// the server's own) with one started with them. An operator's own --max-semi-space-size (on the
// command line or in NODE_OPTIONS) is kept.
const SERVE_NODE_OPTIONS = ['--max-semi-space-size=64', '--expose-gc'];
/** Words that name a command other than `serve` (the default command). */
const OTHER_COMMANDS = new Set(['db', 'status', 'policy', 'price-list', 'help', '--help', '--version', '-V']);

/** The Node options serving still lacks in this process. */
function missingServeOptions() {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return SERVE_NODE_OPTIONS.filter((option) => {
    if (option === '--expose-gc') return typeof globalThis.gc !== 'function';
    const name = option.split('=')[0];
    return !given.some((argument) => argument === name || argument.startsWith(`${name}=`));
  });
}

const args = process.argv.slice(2);

// The version alone is read here, from package.json, without loading the server (a second or more).
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`tariff ${version}\n`);
  process.exit(0);
}

if (!args.some((argument) => OTHER_COMMANDS.has(argument)) && typeof process.execve === 'function') {
  const missing = missingServeOptions();
  if (missing.length > 0) process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, process.argv[1], ...args], process.env);
}

// A checkout that was never built has no dist/: one line saying so, not ERR_MODULE_NOT_FOUND.
const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    `tariff: ${fileURLToPath(new URL('../dist/', import.meta.url))} is not built; run npm run build in ${fileURLToPath(new URL('..', import.meta.url))}\n`,
  );
  process.exit(1);
}
const { main } = await import(cli.href);

const code = await main(args);
if (code !== 0) process.exit(code);
