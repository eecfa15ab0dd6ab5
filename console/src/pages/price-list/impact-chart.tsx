/**
 * The projects that move most, as horizontal bars around zero: a lower charge to the left, a
 * higher one to the right, each bar labelled with its delta as the API's exact decimal text.
 *
 * Plain SVG written by Preact, no chart library: a dozen bars need a scale and some text, which
 * is less code than any library's configuration; it adds nothing to the bundle, draws no canvas
 * (text stays text, sharp at every zoom), and writes no inline style (the console's
 * Content-Security-Policy). The bar lengths are the one place a delta becomes a JavaScript number:
 * that is drawing, the text beside each bar is the exact value.
 */
import type { ProjectImpact } from '../../api/simulation.js';

/** The drawing's width in its own units; it scales to its box (CSS caps the box). */
const WIDTH = 960;
/** A bar's row, and the bar's thickness in it. */
const ROW = 28;
const BAR = 18;
/** Room above the bars for the axis' words. */
const TOP = 26;
/** An estimate of a character's width at the 12-unit monospace the labels use. */
const CHARACTER = 7.3;
/** Space between a label and what it names. */
const GAP = 8;

/** A project's name in the chart: its id, or words for the points without one. */
export function projectName(projectId: string | null): string {
  return projectId ?? '(no project)';
}

/** The most characters of a name the chart writes (the table below has them whole). */
const NAME_CHARACTERS = 40;

/** A name as the chart writes it: cut with an ellipsis past {@link NAME_CHARACTERS}. */
function shortName(name: string): string {
  return name.length > NAME_CHARACTERS ? `${name.slice(0, NAME_CHARACTERS - 1)}…` : name;
}

/** How far `text` reaches at the labels' size. */
function textWidth(text: string): number {
  return text.length * CHARACTER;
}

/** The chart of `projects` (the result's movers, in its order: larger |delta| first). */
export function ImpactChart({ projects }: { projects: ProjectImpact[] }) {
  const magnitudes = projects.map((project) => Math.abs(Number(project.delta)));
  const largest = Math.max(0, ...magnitudes.filter(Number.isFinite));
  const negative = projects.some((project) => project.delta.startsWith('-'));
  const positive = projects.some((project) => !project.delta.startsWith('-') && project.delta !== '0');
  const labels = Math.min(300, Math.max(...projects.map((project) => textWidth(shortName(projectName(project.project_id))))) + GAP);
  const values = Math.max(...projects.map((project) => textWidth(project.delta))) + GAP;
  // Where zero is: in the middle when deltas go both ways, near the side they do not go to otherwise.
  const plotLeft = labels + GAP;
  const plotRight = WIDTH - GAP;
  const zero = negative && positive ? (plotLeft + plotRight) / 2 : negative ? plotRight : plotLeft;
  const room = Math.max(1, (negative ? zero - plotLeft : plotRight - zero) - values);
  const scale = largest === 0 ? 0 : room / largest;
  const height = TOP + projects.length * ROW + 4;
  const summary = `Delta by project for the ${projects.length} projects whose charge moves most: ${projects
    .map((project) => `${projectName(project.project_id)} ${project.delta}`)
    .join(', ')}.`;

  return (
    <figure class="impact-chart">
      <figcaption>Delta by project, the {projects.length} that move most: left of zero the draft charges less, right of it more.</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={summary} preserveAspectRatio="xMinYMin meet">
        <text x={zero} y={TOP - 10} text-anchor="middle" class="impact-chart-axis">
          0
        </text>
        {negative && (
          <text x={zero - 2 * GAP} y={TOP - 10} text-anchor="end" class="impact-chart-axis">
            ← less
          </text>
        )}
        {positive && (
          <text x={zero + 2 * GAP} y={TOP - 10} class="impact-chart-axis">
            more →
          </text>
        )}
        {projects.map((project, index) => {
          const magnitude = magnitudes[index];
          const length = Number.isFinite(magnitude) ? magnitude * scale : 0;
          const down = project.delta.startsWith('-');
          const y = TOP + index * ROW;
          const middle = y + ROW / 2;
          const end = down ? zero - length : zero + length;
          return (
            <g key={project.project_id ?? ''} data-project={projectName(project.project_id)} data-delta={project.delta}>
              <text x={labels} y={middle} text-anchor="end" dominant-baseline="central" class="impact-chart-label">
                {shortName(projectName(project.project_id))}
              </text>
              <rect
                x={down ? end : zero}
                y={y + (ROW - BAR) / 2}
                width={Math.max(length, project.delta === '0' ? 0 : 1)}
                height={BAR}
                class={down ? 'impact-chart-less' : 'impact-chart-more'}
              />
              <text
                x={down ? end - GAP / 2 : end + GAP / 2}
                y={middle}
                text-anchor={down ? 'end' : 'start'}
                dominant-baseline="central"
                class="impact-chart-value"
              >
                {project.delta}
              </text>
            </g>
          );
        })}
        <line x1={zero} x2={zero} y1={TOP - 4} y2={height} class="impact-chart-zero" />
      </svg>
    </figure>
  );
}
