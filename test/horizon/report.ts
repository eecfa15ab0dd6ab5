/**
 * The harness's report: one line per action with its outcome against CloudKitty 17 and against
 * Tariff, then, for every action that does not work against Tariff, what Horizon showed, the
 * tracebacks it logged and the rating API calls that failed (method, path, body, answer).
 */
import type { ApiCall } from './calls.js';
import type { Side } from './cloud.js';
import type { Verdict } from './walk.js';

/** A verdict with what Horizon's log holds for its span. */
export interface Observed extends Verdict {
  /** Calls to the region's rating endpoint during the action. */
  calls: ApiCall[];
  /** ERROR lines (with their exception) Horizon logged during the action. */
  tracebacks: string[];
  /** How long the action took, in milliseconds. */
  ms: number;
}

const MARK = { works: 'works', fails: '**fails**', unreachable: '*cannot be reached*' } as const;

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function seconds(o: Observed | undefined): string {
  return o ? (o.ms / 1000).toFixed(1) : '—';
}

function describeCall(call: ApiCall): string {
  return `\`${call.method} ${call.path}\`${call.body ? ` body \`${call.body}\`` : ''} → ${call.status ?? 'no answer'}${call.answer ? ` \`${call.answer}\`` : ''}`;
}

/** The report as Markdown. */
export function report(observed: Record<Side, Observed[]>): string {
  const lines: string[] = ['# Horizon (Debian openstack-dashboard 23 + cloudkitty-dashboard 15): Tariff against CloudKitty 17', ''];
  const count = (side: Side, result: string) => observed[side].filter((o) => o.result === result).length;
  for (const side of ['tariff', 'cloudkitty'] as Side[]) {
    lines.push(
      `- ${side === 'tariff' ? 'Tariff' : 'CloudKitty 17'}: ${count(side, 'works')} work, ${count(side, 'fails')} fail, ${count(side, 'unreachable')} cannot be reached (of ${observed[side].length}), walked in ${(observed[side].reduce((sum, o) => sum + o.ms, 0) / 1000).toFixed(1)} s`,
    );
  }
  lines.push('', '| panel | action | CloudKitty 17 | Tariff | Tariff detail | s (CK / Tariff) |', '|---|---|---|---|---|---|');
  const cloudkitty = new Map(observed.cloudkitty.map((o) => [`${o.panel}: ${o.action}`, o]));
  const names = [...new Set([...observed.cloudkitty, ...observed.tariff].map((o) => `${o.panel}: ${o.action}`))];
  const tariff = new Map(observed.tariff.map((o) => [`${o.panel}: ${o.action}`, o]));
  for (const name of names) {
    const reference = cloudkitty.get(name);
    const ours = tariff.get(name);
    const any = (reference ?? ours)!;
    lines.push(
      `| ${cell(any.panel)} | ${cell(any.action)} | ${reference ? MARK[reference.result] : '—'} | ${ours ? MARK[ours.result] : '—'} | ${cell(ours?.detail ?? '')} | ${seconds(reference)} / ${seconds(ours)} |`,
    );
  }
  for (const side of ['tariff', 'cloudkitty'] as Side[]) {
    const failing = observed[side].filter((o) => o.result !== 'works' || o.tracebacks.length > 0);
    if (failing.length === 0) continue;
    lines.push('', `## What does not work against ${side === 'tariff' ? 'Tariff' : 'CloudKitty 17'}`, '');
    for (const o of failing) {
      lines.push(`### ${o.panel}: ${o.action} — ${o.result}`, '', `- shown: ${o.detail}`);
      for (const traceback of o.tracebacks) lines.push(`- Horizon logged: ${traceback}`);
      for (const call of o.calls.filter((c) => (c.status ?? 600) >= 400)) lines.push(`- failing call: ${describeCall(call)}`);
      lines.push('');
    }
  }
  return `${lines.join('\n')}\n`;
}
