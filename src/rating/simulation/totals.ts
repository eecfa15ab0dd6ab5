/**
 * What a simulation adds up (docs/price-list.md §4): money per project × service on three sides
 * (stored, current, draft), the rules that change prices, and the reconciliation of stored
 * prices with the current rules, by project and window, with the first findings listed. Exact
 * decimals throughout: Python's default context, as every price (`common/exact.ts`).
 */
import { Decimal } from 'decimal.js';
import { Exact } from '../common/exact.js';
import { formatApiDateTime } from '../common/datetime.js';
import type { StoredPoint } from './stored-dataframe.js';

/** Money of some points on each side, for the collection periods they cover. */
export interface SideTotals {
  points: number;
  /** Points whose draft price differs from their current one. */
  changedPoints: number;
  stored: Exact;
  current: Exact;
  draft: Exact;
}

/** One point whose stored price differs from the current rules' price. */
export interface Finding {
  projectId: string | null;
  service: string;
  begin: Date;
  end: Date;
  point: StoredPoint;
  current: Exact;
}

/** Reconciliation totals: points, what was stored and what the current rules give. */
interface ReconciledTotals {
  points: number;
  stored: Exact;
  current: Exact;
}

const MINUS_ONE = Exact.from(-1);
/** relative_delta's significant digits (Python's default context). */
const RATIO = Decimal.clone({ precision: 28, rounding: Decimal.ROUND_HALF_EVEN });

function emptyTotals(): SideTotals {
  return { points: 0, changedPoints: 0, stored: Exact.ZERO, current: Exact.ZERO, draft: Exact.ZERO };
}

function emptyReconciled(): ReconciledTotals {
  return { points: 0, stored: Exact.ZERO, current: Exact.ZERO };
}

/** `a − b`, exactly (rounded to 28 digits like every sum). */
export function difference(a: Exact, b: Exact): Exact {
  return a.plus(b.times(MINUS_ONE));
}

/** The JSON members of some totals: exact decimal strings, `relative_delta` null when current is 0. */
function totalsJson(totals: SideTotals) {
  const delta = difference(totals.draft, totals.current);
  return {
    points: totals.points,
    changed_points: totals.changedPoints,
    stored: totals.stored.toString(),
    current: totals.current.toString(),
    draft: totals.draft.toString(),
    delta: delta.toString(),
    relative_delta: totals.current.isZero() ? null : new RATIO(delta.toString()).dividedBy(totals.current.toString()).toString(),
  };
}

function reconciledJson(totals: ReconciledTotals) {
  return {
    points: totals.points,
    stored: totals.stored.toString(),
    current: totals.current.toString(),
    difference: difference(totals.stored, totals.current).toString(),
  };
}

/** Larger |delta| first, then by name (null first). */
function byDelta<T extends { delta: Exact; name: string | null }>(entries: T[]): T[] {
  return entries.sort((a, b) => {
    const magnitude = (value: Exact) => (value.isNegative() ? value.times(MINUS_ONE) : value);
    return magnitude(b.delta).compare(magnitude(a.delta)) || (a.name ?? '').localeCompare(b.name ?? '');
  });
}

/** The totals of a simulation, added to as points are priced. */
export class SimulationTotals {
  /** By project, then service. */
  private readonly byProject = new Map<string | null, Map<string, SideTotals>>();
  /** Points whose draft price differs, by `module \0 rule name`. */
  private readonly changedByRule = new Map<string, number>();
  /** By project: its totals and, while fewer than `maxFindings` in all, its windows (`begin \0 end`, epoch ms). */
  private readonly reconciled = new Map<string | null, { totals: ReconciledTotals; windows: Map<string, ReconciledTotals> }>();
  /** Windows listed, over every project. */
  private windowCount = 0;
  /** Windows whose points count in their project's totals but are not listed. */
  windowsOmitted = 0;
  readonly findings: Finding[] = [];
  findingsOmitted = 0;
  /** Distinct points priced (each side once). */
  distinctPoints = 0;

  constructor(private readonly maxFindings: number) {}

  /**
   * Adds `count` points of one project and service that share their prices (per point: stored,
   * current, draft).
   */
  add(projectId: string | null, service: string, count: number, stored: Exact, current: Exact, draft: Exact): void {
    const totals = this.totalsOf(projectId, service);
    const factor = count === 1 ? undefined : Exact.from(count);
    const times = (price: Exact) => (factor === undefined ? price : price.times(factor));
    totals.points += count;
    if (!current.eq(draft)) totals.changedPoints += count;
    totals.stored = totals.stored.plus(times(stored));
    totals.current = totals.current.plus(times(current));
    totals.draft = totals.draft.plus(times(draft));
  }

  /** Adds money that belongs to no stored point: what a script left for a service whose points it added or removed. */
  addAmounts(projectId: string | null, service: string, current: Exact, draft: Exact): void {
    const totals = this.totalsOf(projectId, service);
    totals.current = totals.current.plus(current);
    totals.draft = totals.draft.plus(draft);
  }

  /** Counts `count` points whose price the named rules change. */
  addChangedRules(names: readonly string[], count: number): void {
    for (const name of names) this.changedByRule.set(name, (this.changedByRule.get(name) ?? 0) + count);
  }

  /** Records one stored point whose stored price is not the current rules' price. */
  addFinding(finding: Finding, stored: Exact): void {
    let project = this.reconciled.get(finding.projectId);
    if (!project) this.reconciled.set(finding.projectId, (project = { totals: emptyReconciled(), windows: new Map<string, ReconciledTotals>() }));
    const window = `${finding.begin.getTime()}\u0000${finding.end.getTime()}`;
    let totals = project.windows.get(window);
    if (!totals && this.windowCount < this.maxFindings) {
      project.windows.set(window, (totals = emptyReconciled()));
      this.windowCount += 1;
    } else if (!totals) {
      this.windowsOmitted += 1;
    }
    for (const sum of totals ? [project.totals, totals] : [project.totals]) {
      sum.points += 1;
      sum.stored = sum.stored.plus(stored);
      sum.current = sum.current.plus(finding.current);
    }
    if (this.findings.length < this.maxFindings) this.findings.push(finding);
    else this.findingsOmitted += 1;
  }

  private totalsOf(projectId: string | null, service: string): SideTotals {
    let services = this.byProject.get(projectId);
    if (!services) this.byProject.set(projectId, (services = new Map<string, SideTotals>()));
    let totals = services.get(service);
    if (!totals) services.set(service, (totals = emptyTotals()));
    return totals;
  }

  /** The result's members (docs/price-list.md §4) from the totals so far. */
  toJson(top: number) {
    const projects = new Map<string | null, SideTotals>();
    const services = new Map<string, SideTotals>();
    const all = emptyTotals();
    const projectServices: { projectId: string | null; service: string; totals: SideTotals }[] = [];
    for (const [projectId, byService] of this.byProject) {
      for (const [service, totals] of byService) {
        projectServices.push({ projectId, service, totals });
        for (const sum of [all, this.sum(projects, projectId), this.sum(services, service)]) {
          sum.points += totals.points;
          sum.changedPoints += totals.changedPoints;
          sum.stored = sum.stored.plus(totals.stored);
          sum.current = sum.current.plus(totals.current);
          sum.draft = sum.draft.plus(totals.draft);
        }
      }
    }
    const ranked = <K extends string | null>(map: Map<K, SideTotals>) =>
      byDelta([...map].map(([name, totals]) => ({ name, totals, delta: difference(totals.draft, totals.current) })));
    const projectList = ranked(projects).map(({ name, totals }) => ({ project_id: name, ...totalsJson(totals) }));
    const serviceList = ranked(services).map(({ name, totals }) => ({ service: name, ...totalsJson(totals) }));
    const pairs = byDelta(
      projectServices.map((entry) => ({
        ...entry,
        name: `${entry.projectId ?? ''}\u0000${entry.service}`,
        delta: difference(entry.totals.draft, entry.totals.current),
      })),
    );
    return {
      totals: { ...totalsJson(all), distinct_points: this.distinctPoints },
      projects: projectList,
      services: serviceList,
      project_services: pairs.map(({ projectId, service, totals }) => ({ project_id: projectId, service, ...totalsJson(totals) })),
      movers: { projects: projectList.slice(0, top), services: serviceList.slice(0, top) },
      rules: [...this.changedByRule]
        .map(([key, points]) => {
          const [module, name] = key.split('\u0000');
          return { module, name, points };
        })
        .sort((a, b) => b.points - a.points || a.module.localeCompare(b.module) || a.name.localeCompare(b.name)),
      reconciliation: this.reconciliationJson(),
    };
  }

  private sum<K>(map: Map<K, SideTotals>, key: K): SideTotals {
    let totals = map.get(key);
    if (!totals) map.set(key, (totals = emptyTotals()));
    return totals;
  }

  private reconciliationJson() {
    const all = emptyReconciled();
    const projects = [...this.reconciled].map(([projectId, { totals, windows }]) => {
      all.points += totals.points;
      all.stored = all.stored.plus(totals.stored);
      all.current = all.current.plus(totals.current);
      const windowList = [...windows]
        .sort(([a], [b]) => Number(a.split('\u0000')[0]) - Number(b.split('\u0000')[0]))
        .map(([window, windowTotals]) => {
          const [begin, end] = window.split('\u0000').map((time) => formatApiDateTime(new Date(Number(time))));
          return { begin, end, ...reconciledJson(windowTotals) };
        });
      return { project_id: projectId, ...reconciledJson(totals), windows: windowList };
    });
    projects.sort((a, b) => String(a.project_id ?? '').localeCompare(String(b.project_id ?? '')));
    return {
      ...reconciledJson(all),
      projects,
      findings: this.findings.map((finding) => ({
        project_id: finding.projectId,
        service: finding.service,
        begin: formatApiDateTime(finding.begin),
        end: formatApiDateTime(finding.end),
        qty: finding.point.qty,
        unit: finding.point.unit,
        stored: finding.point.price,
        current: finding.current.toString(),
        groupby: finding.point.groupby,
        metadata: finding.point.metadata,
      })),
      findings_omitted: this.findingsOmitted,
      windows_omitted: this.windowsOmitted,
    };
  }
}
