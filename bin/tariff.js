#!/usr/bin/env node
// The `tariff` command; the compiled TypeScript lives in dist/ (`npm run build`).
import { main } from '../dist/cli.js';

const code = await main(process.argv.slice(2));
if (code !== 0) process.exit(code);
