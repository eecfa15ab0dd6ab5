/**
 * The bodies of `/healthcheck` in oslo.middleware's three forms: plain text (one reason a line),
 * JSON (4-space indent, sorted keys) and HTML, each plain or detailed.
 */
import { hostname, machine, release, type } from 'node:os';
import type { HealthResult } from './checks.js';
import { TARIFF_VERSION } from '../../kernel/version.js';

/** A check's result with the check's name. */
export interface NamedResult extends HealthResult {
  check: string;
}

/**
 * oslo.middleware compat: the reasons one a line (`OK`, `DISABLED BY FILE`, or `OK` and
 * `DATABASE UNREACHABLE` on two lines), empty reasons left out. The same with or without details.
 */
export function plainBody(results: readonly NamedResult[]): string {
  return results
    .map((result) => result.reason)
    .filter((reason) => reason !== '')
    .join('\n');
}

/** Python's `str(datetime.utcnow())`: `2016-08-24 06:11:59.419267`. */
function pythonUtcNow(): string {
  return `${new Date().toISOString().slice(0, 23).replace('T', ' ')}000`;
}

/** Python's `platform.platform()`, near enough: `Linux-6.1.0-18-amd64-x86_64`. */
function platformName(): string {
  return `${type()}-${release()}-${machine()}`;
}

/** Objects with their keys sorted at every depth (Python's `json.dumps(sort_keys=True)`). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

/**
 * oslo.middleware compat: `{"detailed": false, "reasons": ["OK"]}`; detailed, every reason is
 * `{"class", "details", "reason"}` with the server's `now` (UTC) and `platform`. Tariff's
 * differences: each reason also names its `check`, `node_version` stands for `python_version`,
 * `version` is Tariff's (package.json), and there is no `gc`, `threads` or `greenthreads`.
 */
export function jsonBody(results: readonly NamedResult[], detailed: boolean): string {
  const body = detailed
    ? {
        detailed: true,
        now: pythonUtcNow(),
        platform: platformName(),
        node_version: process.version,
        version: TARIFF_VERSION,
        reasons: results.map((result) => ({ class: 'HealthcheckResult', check: result.check, reason: result.reason, details: result.details })),
      }
    : { detailed: false, reasons: results.map((result) => result.reason) };
  return JSON.stringify(sortedKeys(body), null, 4);
}

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };

/** Jinja's `|e`. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ENTITIES[character]);
}

/**
 * oslo.middleware compat: the `Healthcheck Status` page, a table of the checks (`Result of N
 * checks:`, one `<TD>reason</TD>` a row); detailed, with the host name, time and platform, and
 * the kind and details of each check.
 */
export function htmlBody(results: readonly NamedResult[], detailed: boolean): string {
  const shown = results.filter((result) => result.reason !== '');
  const lines = ['<HTML>', '<HEAD><TITLE>Healthcheck Status</TITLE></HEAD>', '<BODY>'];
  if (detailed) {
    lines.push(
      '<H1>Server status</H1>',
      `<B>Server hostname:</B><PRE>${escapeHtml(hostname())}</PRE>`,
      `<B>Current time:</B><PRE>${escapeHtml(pythonUtcNow())}</PRE>`,
      `<B>Tariff version:</B><PRE>${escapeHtml(TARIFF_VERSION)}</PRE>`,
      `<B>Node.js version:</B><PRE>${escapeHtml(process.version)}</PRE>`,
      `<B>Platform:</B><PRE>${escapeHtml(platformName())}</PRE>`,
      '<HR></HR>',
    );
  }
  lines.push(`<H2>Result of ${results.length} checks:</H2>`, '<TABLE bgcolor="#ffffff" border="1">', '<TBODY>', '<TR>');
  lines.push(...(detailed ? ['<TH>', 'Kind', '</TH>', '<TH>', 'Reason', '</TH>', '<TH>', 'Details', '</TH>'] : ['<TH>', 'Reason', '</TH>']), '</TR>');
  for (const result of shown) {
    lines.push('<TR>');
    if (detailed) lines.push(`    <TD>${escapeHtml(result.check)}</TD>`);
    lines.push(`    <TD>${escapeHtml(result.reason)}</TD>`);
    if (detailed) lines.push(`    <TD>${escapeHtml(result.details)}</TD>`);
    lines.push('</TR>');
  }
  lines.push('</TBODY>', '</TABLE>', '<HR></HR>', '</BODY>', '</HTML>');
  return lines.join('\n');
}
