#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `node bench/run.js --cpu-prof`): where the server's CPU time
// goes, by area (Tariff source file, npm package, node internals, GC, idle), by function (self
// time) and by function including callees (inclusive time).
//
//   node bench/profile-summary.js <file.cpuprofile> [--top 25] [--from S] [--to S] [--match REGEX]
//
// --from/--to restrict the samples to a window (seconds since the profile started); --match shows
// inclusive time only for functions whose "name file:line" matches.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    from: { type: 'string' },
    to: { type: 'string' },
    match: { type: 'string' },
  },
});
if (positionals.length !== 1) {
  console.error('usage: node bench/profile-summary.js <file.cpuprofile> [--top N] [--from S] [--to S] [--match REGEX]');
  process.exit(2);
}
const top = Number(values.top);
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));

const byId = new Map();
const parent = new Map();
for (const node of profile.nodes) byId.set(node.id, node);
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

function area(frame) {
  const url = frame.url ?? '';
  if (!url) {
    if (frame.functionName.startsWith('(')) return frame.functionName; // (garbage collector), (idle), (program)
    return '(native)';
  }
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return `npm:${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return `tariff:${url.slice(dist + '/dist/'.length)}`;
  return path.basename(url);
}

function key(frame) {
  const url = frame.url ? `${area(frame).replace(/^tariff:/, '')}:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'} ${url}`.trim();
}

const fromUs = values.from !== undefined ? Number(values.from) * 1e6 : -Infinity;
const toUs = values.to !== undefined ? Number(values.to) * 1e6 : Infinity;
const self = new Map();
const inclusive = new Map();
const areas = new Map();
let total = 0;
let t = 0;
for (let i = 0; i < profile.samples.length; i += 1) {
  t += profile.timeDeltas[i];
  if (t < fromUs || t > toUs) continue;
  const dt = profile.timeDeltas[i + 1] ?? 0; // time until the next sample belongs to this one
  const node = byId.get(profile.samples[i]);
  total += dt;
  const k = key(node.callFrame);
  self.set(k, (self.get(k) ?? 0) + dt);
  const a = area(node.callFrame);
  areas.set(a, (areas.get(a) ?? 0) + dt);
  const seen = new Set();
  for (let id = node.id; id !== undefined; id = parent.get(id)) {
    const kk = key(byId.get(id).callFrame);
    if (!seen.has(kk)) {
      seen.add(kk);
      inclusive.set(kk, (inclusive.get(kk) ?? 0) + dt);
    }
  }
}

const idle = areas.get('(idle)') ?? 0;
const busy = total - idle;
const pct = (us, of) => `${((100 * us) / of).toFixed(1)} %`.padStart(7);
const ms = (us) => `${(us / 1000).toFixed(0)} ms`.padStart(10);
const print = (title, map, of, limit, filter) => {
  console.log(`\n## ${title}`);
  const rows = [...map.entries()]
    .filter(([k]) => !filter || filter(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit);
  for (const [k, us] of rows) console.log(`${ms(us)} ${pct(us, of)}  ${k}`);
};

console.log(`profile: ${positionals[0]}`);
console.log(
  `window: ${(total / 1e6).toFixed(1)} s sampled, busy (not idle) ${(busy / 1e6).toFixed(1)} s = ${((100 * busy) / total).toFixed(0)} %; percentages below are of busy time`,
);
const notIdle = (k) => !k.startsWith('(idle)');
print('by area (self time)', areas, busy, top, notIdle);
print('by function, self time', self, busy, top, notIdle);
const match = values.match ? new RegExp(values.match) : null;
print(
  `by function, inclusive time${match ? ` (matching ${match})` : ''}`,
  inclusive,
  busy,
  top,
  (k) => notIdle(k) && !k.startsWith('(root)') && (!match || match.test(k)),
);
