/**
 * A simulation's result (docs/price-list.md §4) as the price-list page shows it: the totals, the
 * movers as a chart, every project's and every service's totals, the rules that change prices and
 * the reconciliation of stored prices. Money is the API's exact decimal text, written as it comes.
 */
import { useState } from 'preact/hooks';
import { percentText } from '../../decimal-text.js';
import { countOf } from '../../format.js';
import { formatDateTime } from '../../validity.js';
import type { ReconciledProject, ReconciliationFinding, SimulationResult, SimulationTotals } from '../../api/simulation.js';
import { ImpactChart, projectName } from './impact-chart.js';
import { periodText } from './impact-period.js';

/** Rows listed before a "list all" button (a cloud of thousands of projects stays responsive). */
const ROWS_LISTED = 100;
const FINDINGS_LISTED = 20;
const WINDOWS_LISTED = 50;

/**
 * The first `limit` of `items`, and (while some are not listed) the button that lists them all:
 * `noun` names them on it (`projects`).
 */
function useFirstListed<T>(items: readonly T[], limit: number, noun: string) {
  const [listAll, setListAll] = useState(false);
  const listed = listAll ? items : items.slice(0, limit);
  const more =
    listed.length < items.length ? (
      <button type="button" onClick={() => setListAll(true)}>
        List all {items.length.toLocaleString('en')} {noun}
      </button>
    ) : null;
  return { listed, more };
}

/**
 * A table's header row: `names` (text columns), then `numbers` (right-aligned number columns),
 * then `after` (text columns again).
 */
function HeaderRow({ names, numbers, after = [] }: { names: readonly string[]; numbers: readonly string[]; after?: readonly string[] }) {
  const head = (label: string, number = false) => (
    <th key={label} scope="col" class={number ? 'number' : undefined}>
      {label}
    </th>
  );
  return (
    <tr>
      {names.map((label) => head(label))}
      {numbers.map((label) => head(label, true))}
      {after.map((label) => head(label))}
    </tr>
  );
}

/** A relative delta as a percentage, its exact ratio in the title; `—` when current is 0. */
function Relative({ ratio }: { ratio: string | null }) {
  if (ratio === null) return <span title="The current charge is 0: no ratio">—</span>;
  return (
    <span title={ratio} data-ratio={ratio}>
      {percentText(ratio)}
    </span>
  );
}

/** The whole result's totals. */
function Totals({ result }: { result: SimulationResult }) {
  const { totals } = result;
  const money = [
    ['stored', 'Stored', totals.stored],
    ['current', 'Current rules', totals.current],
    ['draft', 'Draft', totals.draft],
    ['delta', 'Delta', totals.delta],
  ] as const;
  return (
    <dl class="impact-totals">
      {money.map(([key, label, value]) => (
        <div key={key}>
          <dt>{label}</dt>
          <dd data-total={key}>{value}</dd>
        </div>
      ))}
      <div>
        <dt>Relative delta</dt>
        <dd data-total="relative_delta">
          <Relative ratio={totals.relative_delta} />
        </dd>
      </div>
      <div>
        <dt>Points</dt>
        <dd data-total="points">{totals.points.toLocaleString('en')}</dd>
      </div>
      <div>
        <dt>Changed points</dt>
        <dd data-total="changed_points">{totals.changed_points.toLocaleString('en')}</dd>
      </div>
    </dl>
  );
}

/** A row of an impact table: a project's or a service's totals, and its name as shown. */
interface ImpactRow extends SimulationTotals {
  name: string;
}

/**
 * Totals by project or by service, in the result's order (larger |delta| first); `kind` names the
 * first column and the rows' `data-` attribute (`data-project`, `data-service`).
 */
function ImpactTable({ rows, kind, caption }: { rows: ImpactRow[]; kind: 'project' | 'service'; caption: string }) {
  const { listed, more } = useFirstListed(rows, ROWS_LISTED, `${kind}s`);
  return (
    <>
      <table class={`impact-table impact-${kind}s`}>
        <caption>{caption}</caption>
        <thead>
          <HeaderRow
            names={[kind === 'project' ? 'Project' : 'Service']}
            numbers={['Points', 'Changed points', 'Stored', 'Current rules', 'Draft', 'Delta', 'Relative delta']}
          />
        </thead>
        <tbody>
          {listed.map((row) => (
            <tr key={row.name} {...{ [`data-${kind}`]: row.name }}>
              <th scope="row" class="impact-name">
                {row.name}
              </th>
              <td class="number">{row.points.toLocaleString('en')}</td>
              <td class="number">{row.changed_points.toLocaleString('en')}</td>
              <td class="number">{row.stored}</td>
              <td class="number">{row.current}</td>
              <td class="number">{row.draft}</td>
              <td class="number" data-delta>
                {row.delta}
              </td>
              <td class="number">
                <Relative ratio={row.relative_delta} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {more}
    </>
  );
}

/** The rules whose contribution differs between the two sides. */
function Rules({ result }: { result: SimulationResult }) {
  if (result.rules.length === 0) return <p class="hint">No rule gives a different price on this usage.</p>;
  return (
    <table class="impact-table impact-rules">
      <caption>The rules that change prices, with the points whose price each changes</caption>
      <thead>
        <HeaderRow names={['Module', 'Rule']} numbers={['Points']} />
      </thead>
      <tbody>
        {result.rules.map((rule) => (
          <tr key={`${rule.module}\u0000${rule.name}`} data-rule={rule.name}>
            <td>{rule.module}</td>
            <td class="impact-name">{rule.name}</td>
            <td class="number">{rule.points.toLocaleString('en')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A project's collection periods with stored prices that differ, the first ones listed. */
function Windows({ project }: { project: ReconciledProject }) {
  const listed = project.windows.slice(0, WINDOWS_LISTED);
  return (
    <details>
      <summary>{countOf(project.windows.length, 'period')}</summary>
      <ul class="impact-windows">
        {listed.map((window) => (
          <li key={window.begin}>
            {periodText(window.begin, window.end)}: {countOf(window.points, 'point')}, stored {window.stored}, current {window.current}, difference{' '}
            {window.difference}
          </li>
        ))}
      </ul>
      {listed.length < project.windows.length && <p class="hint">and {countOf(project.windows.length - listed.length, 'more period')}.</p>}
    </details>
  );
}

/** A point's `groupby` and `metadata` as `name=value` text. */
function descText(desc: Record<string, unknown>): string {
  return Object.entries(desc)
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}

/** The first findings, more on demand (the server sends at most TARIFF_SIMULATION_MAX_FINDINGS). */
function Findings({ findings, omitted }: { findings: ReconciliationFinding[]; omitted: number }) {
  const { listed, more } = useFirstListed(findings, FINDINGS_LISTED, 'points');
  return (
    <>
      <table class="impact-table impact-findings">
        <caption>
          The first {countOf(listed.length, 'point')} whose stored price differs
          {omitted > 0 ? ` (the server left out ${omitted.toLocaleString('en')} more)` : ''}
        </caption>
        <thead>
          <HeaderRow names={['Project', 'Service', 'Period']} numbers={['Quantity', 'Stored', 'Current rules']} after={['Metadata']} />
        </thead>
        <tbody>
          {listed.map((finding, index) => (
            <tr key={index}>
              <td class="impact-name">{projectName(finding.project_id)}</td>
              <td>{finding.service}</td>
              <td>{periodText(finding.begin, finding.end)}</td>
              <td class="number">
                {finding.qty}
                {finding.unit ? ` ${finding.unit}` : ''}
              </td>
              <td class="number">{finding.stored}</td>
              <td class="number">{finding.current}</td>
              <td class="impact-desc">{descText(finding.metadata)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {more}
    </>
  );
}

/** Stored prices against the current rules: what a reprocessing of the period would change. */
function Reconciliation({ result }: { result: SimulationResult }) {
  const { reconciliation } = result;
  return (
    <section aria-labelledby="impact-reconciliation-heading" class="impact-reconciliation">
      <h3 id="impact-reconciliation-heading">Stored prices against the current rules</h3>
      <p class="hint">Points whose stored price is not what the rules in force now give them: what reprocessing the period would change, whatever the draft.</p>
      {reconciliation.points === 0 ? (
        <p data-reconciled>Every stored price is what the current rules give.</p>
      ) : (
        <>
          <dl class="impact-totals">
            <div>
              <dt>Points</dt>
              <dd data-reconciliation="points">{reconciliation.points.toLocaleString('en')}</dd>
            </div>
            <div>
              <dt>Stored</dt>
              <dd data-reconciliation="stored">{reconciliation.stored}</dd>
            </div>
            <div>
              <dt>Current rules</dt>
              <dd data-reconciliation="current">{reconciliation.current}</dd>
            </div>
            <div>
              <dt>Difference</dt>
              <dd data-reconciliation="difference">{reconciliation.difference}</dd>
            </div>
          </dl>
          <table class="impact-table impact-reconciled">
            <caption>
              By project, with the collection periods concerned
              {reconciliation.windows_omitted > 0
                ? ` (the server listed the first ones: ${countOf(reconciliation.windows_omitted, 'more period')} left out)`
                : ''}
            </caption>
            <thead>
              <HeaderRow names={['Project']} numbers={['Points', 'Stored', 'Current rules', 'Difference']} after={['Periods']} />
            </thead>
            <tbody>
              {reconciliation.projects.map((project) => (
                <tr key={project.project_id ?? ''} data-project={projectName(project.project_id)}>
                  <th scope="row" class="impact-name">
                    {projectName(project.project_id)}
                  </th>
                  <td class="number">{project.points.toLocaleString('en')}</td>
                  <td class="number">{project.stored}</td>
                  <td class="number">{project.current}</td>
                  <td class="number">{project.difference}</td>
                  <td>
                    <Windows project={project} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Findings findings={reconciliation.findings} omitted={reconciliation.findings_omitted} />
        </>
      )}
    </section>
  );
}

/** A whole result; `source` says where its usage came from (the file's name, or CloudKitty). */
export function ImpactResult({ result, source }: { result: SimulationResult; source: string }) {
  return (
    <div class="impact-result" data-impact-result>
      <h3>Impact on {periodText(result.begin, result.end)}</h3>
      <p>
        Usage from {source}; the draft in force from {formatDateTime(result.effective_at)}; the current rules at configuration revision {result.revision}.{' '}
        {countOf(result.totals.distinct_points, 'distinct point')} priced.
      </p>
      <p class="hint">
        Stored: what CloudKitty stored for these points. Current rules: priced again with the rules as they are now. Draft: with this document’s rules from the
        time it takes effect. Delta: draft minus current rules.
      </p>
      <Totals result={result} />
      {result.movers.projects.some((project) => project.delta !== '0') ? (
        <ImpactChart projects={result.movers.projects} />
      ) : (
        <p class="hint" data-nothing-moves>
          No project’s charge moves: the draft gives these points their current prices.
        </p>
      )}
      {result.projects.length === 0 ? (
        <p class="hint">No point of the usage falls in this period.</p>
      ) : (
        <>
          <ImpactTable
            kind="project"
            caption="Projects, those whose charge moves most first"
            rows={result.projects.map((project) => ({ ...project, name: projectName(project.project_id) }))}
          />
          <ImpactTable
            kind="service"
            caption="Services, those whose charge moves most first"
            rows={result.services.map((service) => ({ ...service, name: service.service }))}
          />
        </>
      )}
      <Rules result={result} />
      <Reconciliation result={result} />
    </div>
  );
}
