#!/usr/bin/env node
/**
 * Records how long each test file took, for the suite's file order (test/helpers/longest-first.ts):
 * reads the output of a full run with vitest's default reporter (`npm test > run.log`, or CI's
 * log) and writes test/durations.json, seconds by `project:path`, the files of 5 s and more,
 * longest first.
 *
 *   node scripts/test-durations.js run.log
 */
import { readFileSync, writeFileSync } from 'node:fs';

const [log] = process.argv.slice(2);
if (!log) {
  console.error('usage: node scripts/test-durations.js <output of a full vitest run>');
  process.exit(2);
}
// " ✓  system  test/horizon/horizon.test.ts (3 tests) 177486ms", colours removed.
const FILE_LINE = /^ [✓×❯] +(\w+) +(test\/\S+\.test\.ts) .*?(\d+)ms$/;
const durations = {};
for (const line of readFileSync(log, 'utf8')
  // eslint-disable-next-line no-control-regex -- the terminal's colour sequences (ESC [ … m) out
  .replace(/\x1b\[[0-9;]*m/g, '')
  .split('\n')) {
  const match = FILE_LINE.exec(line);
  if (!match) continue;
  const seconds = Math.round(Number(match[3]) / 1000);
  if (seconds >= 5) durations[`${match[1]}:${match[2]}`] = seconds;
}
const sorted = Object.fromEntries(Object.entries(durations).sort((a, b) => b[1] - a[1]));
writeFileSync(new URL('../test/durations.json', import.meta.url), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files`);
