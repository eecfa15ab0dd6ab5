#!/usr/bin/env -S node --max-semi-space-size=64 --expose-gc
// The `tariff` command; the compiled TypeScript lives in dist/ (`npm run build`).
// --max-semi-space-size=64: a larger young generation; measured, it cut the CPU of listing 10,000
// mappings by about a quarter (bench/README.md). --expose-gc: a full collection after a bulk
// price-list operation gives its garbage back (src/kernel/memory.ts). `npm start` passes the same flags.

// package.json's "engines": Node.js 24.11+ or 26+ (node:sqlite, --permission). An older node (the
// `node` first on the PATH when this file is run directly) stops here with one line, before
// dist/ is loaded.
const [major, minor] = process.versions.node.split('.').map(Number);
if (!(major >= 26 || (major === 24 && minor >= 11))) {
  process.stderr.write(
    `tariff: Node.js 24.11 or newer is needed (24 LTS or 26 LTS); this is ${process.version} (${process.execPath}). ` +
      'Run it through npm (npm start, npx tariff), which uses the Node scripts/install.sh installed, or put a supported node first on the PATH.\n',
  );
  process.exit(1);
}
const { main } = await import('../dist/cli.js');

const code = await main(process.argv.slice(2));
if (code !== 0) process.exit(code);
