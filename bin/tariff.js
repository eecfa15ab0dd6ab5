#!/usr/bin/env -S node --max-semi-space-size=64 --expose-gc
// The `tariff` command; the compiled TypeScript lives in dist/ (`npm run build`).
// --max-semi-space-size=64: a larger young generation; measured, it cut the CPU of listing 10,000
// mappings by about a quarter (bench/README.md). --expose-gc: a full collection after a bulk
// price-list operation gives its garbage back (src/kernel/memory.ts). `npm start` passes the same flags.
import { main } from '../dist/cli.js';

const code = await main(process.argv.slice(2));
if (code !== 0) process.exit(code);
