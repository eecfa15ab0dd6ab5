/**
 * Services: each service's fields, mappings and thresholds in one view, every rule with its group,
 * tenant and validity state; searched and filtered; the entry points of the rule editor (new
 * service, field, mapping or threshold; edit or delete one) and each mapping's history.
 */
import { useMemo, useState } from 'preact/hooks';
import { loadCatalog, type Catalog } from '../../catalog.js';
import { Fault } from '../../components/fault.js';
import type { EditRequest } from '../../editing/edit-request.js';
import { RuleEditor } from '../../editing/rule-editor.js';
import { useResource } from '../../use-resource.js';
import { ServicesFilters } from './filters.js';
import { countOf } from '../../format.js';
import { buildRows, countRules, filterRows, isFiltering, NO_FILTER, type RowFilter } from './rows.js';
import { ServicesTable } from './table.js';
import './services.css';

/** The services page. */
export function Services() {
  const { value: catalog, fault, loading, reload } = useResource<Catalog>(loadCatalog);
  const [filter, setFilter] = useState<RowFilter>(NO_FILTER);
  const [editing, setEditing] = useState<EditRequest | undefined>();

  const rows = useMemo(() => (catalog === undefined ? [] : buildRows(catalog)), [catalog]);
  const shown = useMemo(() => filterRows(rows, filter), [rows, filter]);
  const ruleTotal = useMemo(() => countRules(rows), [rows]);
  const ruleShown = isFiltering(filter) ? countRules(shown) : ruleTotal;

  return (
    <section class="services">
      <h1>Services</h1>
      <Fault message={fault} />
      <div class="services-toolbar">
        <ServicesFilters filter={filter} onChange={setFilter} />
        <button type="button" onClick={() => setEditing({ kind: 'service' })}>
          New service
        </button>
      </div>
      {catalog === undefined ? (
        loading && <p aria-busy="true">Loading…</p>
      ) : (
        <>
          <p role="status" class="services-count">
            {ruleShown === ruleTotal ? countOf(ruleTotal, 'rule') : `${countOf(ruleShown, 'rule')} of ${ruleTotal.toLocaleString('en')}`}
            {catalog.services.length === 0 && ' — no service yet: create one to add fields and rules.'}
          </p>
          {shown.length > 0 ? <ServicesTable rows={shown} label="Services and their rules" onEdit={setEditing} /> : <p>No rule matches these filters.</p>}
          {editing !== undefined && (
            <RuleEditor
              request={editing}
              catalog={catalog}
              onClose={(changed) => {
                setEditing(undefined);
                if (changed) void reload();
              }}
            />
          )}
        </>
      )}
    </section>
  );
}
