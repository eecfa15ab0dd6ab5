#!/usr/bin/env -S node --max-semi-space-size=64
// The `tariff` command; the compiled TypeScript lives in dist/ (`npm run build`).
// --max-semi-space-size=64: a larger young generation; measured, it cut the CPU of listing 10,000
// mappings by about a quarter (bench/README.md). `npm start` passes the same flag.
import { main } from '../dist/cli.js';

const code = await main(process.argv.slice(2));
if (code !== 0) process.exit(code);
