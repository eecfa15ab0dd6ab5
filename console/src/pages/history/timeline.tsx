/**
 * A rule's versions drawn on one time axis: a bar per version from its start to its end (to the
 * right edge when open-ended), and a line at now. A picture of the versions table beside it,
 * which says everything in words, so it is hidden from screen readers.
 */
import { formatDateTime } from '../../validity.js';
import type { RuleVersion } from './versions.js';

/** Props of {@link HistoryTimeline}: the versions in order and `now` (epoch ms). */
export interface HistoryTimelineProps {
  versions: RuleVersion[];
  now: number;
}

/** The timeline of `versions`. */
export function HistoryTimeline({ versions, now }: HistoryTimelineProps) {
  const times = versions.flatMap((version) => [version.start, version.end]).flatMap((value) => (value === null ? [] : [Date.parse(value)]));
  const first = Math.min(now, ...times);
  const last = Math.max(now, ...times);
  // Room after the last date, so an open-ended bar visibly runs on.
  const span = Math.max(last - first, 1) * 1.1;
  const percentOf = (time: number) => ((time - first) / span) * 100;
  return (
    <div class="history-timeline" aria-hidden="true">
      {versions.map((version, index) => {
        const from = version.start === null ? 0 : percentOf(Date.parse(version.start));
        const to = version.end === null ? 100 : percentOf(Date.parse(version.end));
        return (
          <div key={version.key} class="history-lane">
            <span class="history-lane-label">v{index + 1}</span>
            <span class="history-track">
              <span class={`history-bar history-bar-${version.state}`} style={{ left: `${from}%`, width: `${Math.max(to - from, 0.5)}%` }} />
            </span>
          </div>
        );
      })}
      <div class="history-lane history-axis">
        <span class="history-lane-label" />
        <span class="history-track">
          <span class="history-now" style={{ left: `${percentOf(now)}%` }}>
            now
          </span>
          <span class="history-axis-start">{formatDateTime(new Date(first).toISOString())}</span>
        </span>
      </div>
    </div>
  );
}
