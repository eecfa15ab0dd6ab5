// The markdown table printed at the end of a run.
import { BASELINE, TARGETS } from './scenarios.js';

export function fmtRps(value) {
  if (value === null || value === undefined) return '–';
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  if (value >= 10) return value.toFixed(1);
  if (value >= 1) return value.toFixed(2);
  return value === 0 ? '0' : value.toFixed(3);
}

export function fmtMs(value) {
  if (value === null || value === undefined) return '–';
  if (value >= 1000) return `${(value / 1000).toFixed(value >= 10_000 ? 0 : 1)} s`;
  if (value >= 100) return `${Math.round(value)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

function fmtRatio(a, b) {
  if (!a || !b) return '–';
  const ratio = a / b;
  return ratio >= 100 ? `×${Math.round(ratio).toLocaleString('en-US')}` : ratio >= 10 ? `×${ratio.toFixed(0)}` : `×${ratio.toFixed(1)}`;
}

function failures(run) {
  const parts = [];
  if (run.non2xx) parts.push(String(run.non2xx));
  else parts.push('0');
  if (run.errors) parts.push(`+${run.errors} err`);
  return parts.join(' ');
}

/**
 * @param {object} results   { tariff?: {runs}, cloudkitty?: {runs} } where runs maps key → run
 * @param {string[]} order   keys `<scenario>@<conns>` in display order, with titles
 */
export function markdownTable(results, rows) {
  const tariff = results.tariff?.runs;
  const live = results.cloudkitty?.runs;
  const base = BASELINE.postgresql;
  const header = ['scenario', 'conns'];
  if (tariff) header.push('Tariff req/s', 'p50', 'p99', 'non-2xx', 'server CPU/req');
  if (live) header.push('CloudKitty live req/s', 'p50', 'p99', 'non-2xx');
  header.push('CloudKitty 17 baseline req/s (p50)');
  if (tariff) header.push('Tariff / CloudKitty');
  if (tariff && live) header.push('Tariff / CK live');
  if (tariff) header.push('target', 'result');
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const { key, title, conns } of rows) {
    const t = tariff?.[key];
    const l = live?.[key];
    if (!t && !l) continue;
    const b = base[key];
    const cells = [title, String(conns)];
    if (tariff)
      cells.push(
        t ? fmtRps(t.rps) : '–',
        t ? fmtMs(t.latency_ms.p50) : '–',
        t ? fmtMs(t.latency_ms.p99) : '–',
        t ? failures(t) : '–',
        t?.server_cpu_ms_per_req != null ? fmtMs(t.server_cpu_ms_per_req) : '–',
      );
    if (live) cells.push(l ? fmtRps(l.rps) : '–', l ? fmtMs(l.latency_ms.p50) : '–', l ? fmtMs(l.latency_ms.p99) : '–', l ? failures(l) : '–');
    cells.push(b ? `${fmtRps(b.rps)} (${fmtMs(b.p50_ms)})` : '–');
    if (tariff) cells.push(t && b ? fmtRatio(t.rps, b.rps) : '–');
    if (tariff && live) cells.push(t && l ? fmtRatio(t.rps, l.rps) : '–');
    if (tariff) {
      const target = TARGETS.find((candidate) => candidate.key === key);
      cells.push(target ? target.text : '', target && t ? (target.pass(t) ? 'pass ✅' : 'FAIL ❌') : '');
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The target verdicts as JSON. */
export function targetVerdicts(tariffRuns) {
  return TARGETS.map((target) => {
    const run = tariffRuns?.[target.key];
    return {
      scenario: target.key,
      target: target.text,
      measured: run ? { rps: run.rps, p50_ms: run.latency_ms.p50, non2xx: run.non2xx } : null,
      pass: run ? target.pass(run) : null,
    };
  });
}
