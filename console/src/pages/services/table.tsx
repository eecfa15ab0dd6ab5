/**
 * The services table: services and fields as heading rows, their mappings and thresholds under
 * them, in a scrolling region that renders only the rows in view (ARIA table semantics: the
 * rows are absolutely placed, which a native table cannot do, and each carries its index).
 */
import { useMemo, useRef } from 'preact/hooks';
import { StateBadge } from '../../components/state-badge.js';
import type { EditRequest, RuleParent } from '../../editing/edit-request.js';
import { hasGeneratedName, mappingNameAt } from '../../catalog.js';
import { formatDateTime } from '../../validity.js';
import { countOf, formatDecimal, orDash } from '../../format.js';
import type { FieldRow, MappingRow, RuleRow, ServiceRow, ServicesRow, ThresholdRow } from './rows.js';
import { useFixedRowVirtualizer } from './virtualizer.js';

/** Every row's height, in pixels (services.css gives rows the same). */
export const ROW_HEIGHT = 40;

/** The column headers, in order. */
const COLUMNS = ['Rule', 'Value or level', 'Name', 'Description', 'Type', 'Cost', 'Group', 'Tenant', 'State', 'Start', 'End', 'Actions'] as const;

/** Props of {@link ServicesTable}. */
export interface ServicesTableProps {
  /** The rows to show, in order. */
  rows: ServicesRow[];
  /** The table's accessible name, e.g. `Rules`. */
  label: string;
  /** Called with what to edit when an entry point (New …, Edit …) is chosen. */
  onEdit: (request: EditRequest) => void;
}

/** The table of `rows`, virtualized: about a screenful of rows in the document at any time. */
export function ServicesTable({ rows, label, onEdit }: ServicesTableProps) {
  const scrollElement = useRef<HTMLDivElement>(null);
  const virtualizer = useFixedRowVirtualizer(rows.length, ROW_HEIGHT, scrollElement);
  // fix: an empty Description column took 500 px at 1920 px (issue 26); it takes a share only when some rule has one.
  const described = useMemo(() => rows.some((row) => row.kind === 'mapping' && row.mapping.description), [rows]);
  return (
    <div class="services-scroll" ref={scrollElement} role="region" aria-label={`${label}, scrollable`} tabIndex={0}>
      <div class={described ? 'services-table' : 'services-table services-no-descriptions'} role="table" aria-label={label} aria-rowcount={rows.length + 1}>
        <div class="services-head" role="rowgroup">
          <div class="services-row" role="row" aria-rowindex={1}>
            {COLUMNS.map((column) => (
              <span key={column} role="columnheader">
                {column}
              </span>
            ))}
          </div>
        </div>
        <div class="services-body" role="rowgroup" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            return (
              <div
                key={row.key}
                class={`services-row services-row-${row.kind}`}
                role="row"
                aria-rowindex={item.index + 2}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <RowCells row={row} onEdit={onEdit} />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function RowCells({ row, onEdit }: { row: ServicesRow; onEdit: (request: EditRequest) => void }) {
  switch (row.kind) {
    case 'service':
      return <ServiceHeading row={row} onEdit={onEdit} />;
    case 'field':
      return <FieldHeading row={row} onEdit={onEdit} />;
    case 'mapping':
      return <MappingCells row={row} onEdit={onEdit} />;
    case 'threshold':
      return <ThresholdCells row={row} onEdit={onEdit} />;
  }
}

function ServiceHeading({ row, onEdit }: { row: ServiceRow; onEdit: (request: EditRequest) => void }) {
  const name = row.service.name;
  const parent: RuleParent = { service_id: row.service.service_id };
  return (
    <span class="services-heading" role="rowheader" aria-colspan={COLUMNS.length}>
      <strong>Service {name}</strong>
      <span class="services-heading-count">{countOf(row.ruleCount, 'rule')}</span>
      <button type="button" onClick={() => onEdit({ kind: 'field', service_id: row.service.service_id })} aria-label={`New field on service ${name}`}>
        New field
      </button>
      <button type="button" onClick={() => onEdit({ kind: 'mapping', parent })} aria-label={`New mapping on service ${name}`}>
        New mapping
      </button>
      <button type="button" onClick={() => onEdit({ kind: 'threshold', parent })} aria-label={`New threshold on service ${name}`}>
        New threshold
      </button>
      <button type="button" onClick={() => onEdit({ kind: 'service', service: row.service })} aria-label={`Edit or delete service ${name}`}>
        Edit service
      </button>
    </span>
  );
}

function FieldHeading({ row, onEdit }: { row: FieldRow; onEdit: (request: EditRequest) => void }) {
  const name = `${row.service.name} / ${row.field.name}`;
  const parent: RuleParent = { field_id: row.field.field_id };
  return (
    <span class="services-heading" role="rowheader" aria-colspan={COLUMNS.length}>
      <strong>Field {name}</strong>
      <span class="services-heading-count">{countOf(row.ruleCount, 'rule')}</span>
      <button type="button" onClick={() => onEdit({ kind: 'mapping', parent })} aria-label={`New mapping on field ${name}`}>
        New mapping
      </button>
      <button type="button" onClick={() => onEdit({ kind: 'threshold', parent })} aria-label={`New threshold on field ${name}`}>
        New threshold
      </button>
      <button
        type="button"
        onClick={() => onEdit({ kind: 'field', service_id: row.service.service_id, field: row.field })}
        aria-label={`Edit or delete field ${name}`}
      >
        Edit field
      </button>
    </span>
  );
}

/** The rule's parent, as the editor takes it. */
function parentOf(row: RuleRow): RuleParent {
  return row.field === undefined ? { service_id: row.service.service_id } : { field_id: row.field.field_id };
}

/** Where the rule sits, for labels: `compute` or `compute / flavor`. */
function placeOf(row: RuleRow): string {
  return row.field === undefined ? row.service.name : `${row.service.name} / ${row.field.name}`;
}

/**
 * A cell of text that can be long (a value, name, group, tenant, description): it wraps onto a
 * second line, and its whole text is in `title` for what is longer still. Only `prose` (a
 * description) is expected to be longer; names and values fit in two lines at the console's widths.
 */
function TextCell({ text, prose = false }: { text: string; prose?: boolean }) {
  return (
    <span role="cell" class={prose ? undefined : 'services-name-text'} title={text === '—' ? undefined : text} data-may-cut={prose ? '' : undefined}>
      {text}
    </span>
  );
}

function MappingCells({ row, onEdit }: { row: MappingRow; onEdit: (request: EditRequest) => void }) {
  const { mapping } = row;
  const label = mappingNameAt(mapping, row.service.name, row.field?.name);
  return (
    <>
      <span role="cell" class="services-kind">
        mapping
      </span>
      <TextCell text={orDash(mapping.value)} />
      {hasGeneratedName(mapping) ? (
        <span role="cell" class="services-generated-name" title="A name the API generated: the rule is its field's value">
          {mapping.name}
        </span>
      ) : (
        <TextCell text={mapping.name} />
      )}
      <TextCell text={orDash(mapping.description)} prose />
      <span role="cell">{mapping.type}</span>
      <span role="cell" class="services-number">
        {formatDecimal(mapping.cost)}
      </span>
      <TextCell text={row.group} />
      <TextCell text={orDash(mapping.tenant_id)} />
      <span role="cell">
        <StateBadge state={row.state} />
      </span>
      <span role="cell">{formatDateTime(mapping.start)}</span>
      <span role="cell">{formatDateTime(mapping.end)}</span>
      <span role="cell" class="services-actions">
        <button type="button" onClick={() => onEdit({ kind: 'mapping', parent: parentOf(row), mapping })} aria-label={`Edit mapping ${label}`}>
          Edit
        </button>
        <a href={`/console/history/mappings/${encodeURIComponent(mapping.name)}`} aria-label={`History of mapping ${label}`}>
          History
        </a>
      </span>
    </>
  );
}

function ThresholdCells({ row, onEdit }: { row: ThresholdRow; onEdit: (request: EditRequest) => void }) {
  const { threshold } = row;
  const level = formatDecimal(threshold.level);
  const tenant = threshold.tenant_id === null ? '' : `, tenant ${threshold.tenant_id}`;
  return (
    <>
      <span role="cell" class="services-kind">
        threshold
      </span>
      <span role="cell" class="services-number">
        {level}
      </span>
      <span role="cell">—</span>
      <span role="cell">—</span>
      <span role="cell">{threshold.type}</span>
      <span role="cell" class="services-number">
        {formatDecimal(threshold.cost)}
      </span>
      <TextCell text={row.group} />
      <TextCell text={orDash(threshold.tenant_id)} />
      <span role="cell" class="services-no-validity">
        no validity
      </span>
      <span role="cell">—</span>
      <span role="cell">—</span>
      <span role="cell" class="services-actions">
        <button
          type="button"
          onClick={() => onEdit({ kind: 'threshold', parent: parentOf(row), threshold })}
          aria-label={`Edit threshold at level ${level} on ${placeOf(row)}${tenant}`}
        >
          Edit
        </button>
      </span>
    </>
  );
}
