/**
 * History: a mapping's or a script's versions over time (`/console/history/:kind/:name`), every
 * version sharing the name, deleted ones included, by start: its state, dates, what it charges
 * (mappings) or runs (scripts), and who created, updated and deleted it; with a timeline.
 */
import { Fault } from '../../components/fault.js';
import { StateBadge } from '../../components/state-badge.js';
import { formatDateTime } from '../../validity.js';
import { hasGeneratedName } from '../../catalog.js';
import { HistoryTimeline } from './timeline.js';
import { DETAIL_COLUMNS, isVersionedKind, loadVersions, type RuleVersion, type VersionedKind } from './versions.js';
import { countOf } from '../../format.js';
import { useResource } from '../../use-resource.js';
import './history.css';

/** Props of {@link History}, from the route: `kind` is `mappings` or `scripts`, `name` the rule's. */
export interface HistoryProps {
  kind?: string;
  name?: string;
}

/** The history page. */
export function History({ kind, name = '' }: HistoryProps) {
  if (!isVersionedKind(kind)) {
    return (
      <section class="history">
        <h1>History</h1>
        <Fault message={`There is no history of ${kind ?? 'this'}: only of mappings and scripts.`} />
      </section>
    );
  }
  return <VersionHistory kind={kind} name={name} />;
}

function VersionHistory({ kind, name }: { kind: VersionedKind; name: string }) {
  const {
    value: loaded,
    fault,
    loading,
  } = useResource(async () => {
    const loadedAt = Date.now();
    return { versions: await loadVersions(kind, name, loadedAt), loadedAt };
  }, [kind, name]);
  const noun = kind === 'mappings' ? 'mapping' : 'script';

  return (
    <section class="history">
      <p class="history-back">
        <a href={kind === 'mappings' ? '/console/services' : '/console/scripts'}>{kind === 'mappings' ? 'Back to services' : 'Back to scripts'}</a>
      </p>
      <h1>
        History of {noun} {kind === 'mappings' && loaded !== undefined ? mappingTitle(name, loaded.versions) : name}
      </h1>
      <Fault message={fault} />
      {loaded === undefined ? (
        loading && <p aria-busy="true">Loading…</p>
      ) : loaded.versions.length === 0 ? (
        <p role="status">
          No {noun} was ever named {name}.
        </p>
      ) : (
        <>
          <p role="status">{countOf(loaded.versions.length, 'version')}, oldest start first.</p>
          <h2>Timeline</h2>
          <HistoryTimeline versions={loaded.versions} now={loaded.loadedAt} />
          <h2>Versions</h2>
          <VersionsTable kind={kind} versions={loaded.versions} />
        </>
      )}
    </section>
  );
}

function VersionsTable({ kind, versions }: { kind: VersionedKind; versions: RuleVersion[] }) {
  return (
    <div class="history-scroll" role="region" aria-label="Versions, scrollable" tabIndex={0}>
      <table class="history-table">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">State</th>
            <th scope="col">Start</th>
            <th scope="col">End</th>
            {DETAIL_COLUMNS[kind].map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            <th scope="col">Created</th>
            <th scope="col">Updated by</th>
            <th scope="col">Deleted</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version, index) => (
            <tr key={version.key}>
              <th scope="row">{index + 1}</th>
              <td>
                <StateBadge state={version.state} />
              </td>
              <td>{formatDateTime(version.start)}</td>
              <td>{formatDateTime(version.end)}</td>
              {version.details.map((detail, column) =>
                kind === 'scripts' && column === 0 ? (
                  // A SHA-512 checksum: its start tells versions apart, the whole is in the title.
                  <td key={column} class="history-checksum" title={detail} data-may-cut="">
                    {detail}
                  </td>
                ) : (
                  <td key={column}>{detail}</td>
                ),
              )}
              <td>{audit(version.createdAt, version.createdBy)}</td>
              <td>{version.updatedBy ?? '—'}</td>
              <td>{version.deletedAt === null ? '—' : audit(version.deletedAt, version.deletedBy)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** When and by whom: `2026-11-24 10:00 UTC by alice`. */
function audit(at: string | null, by: string | null): string {
  return by === null ? formatDateTime(at) : `${formatDateTime(at)} by ${by}`;
}

/**
 * A mapping in the title: its name, or where its generated name says nothing (issue 26) where its
 * first version applies (`compute / flavor = m1.large`, the service alone for a service mapping).
 */
function mappingTitle(name: string, versions: RuleVersion[]): string {
  const first = versions[0];
  if (!hasGeneratedName({ name }) || first === undefined) return name;
  const [place, value] = first.details;
  return value === undefined || value === '—' ? `${place}` : `${place} = ${value}`;
}
