/** The services page's search box and its kind and state filters. */
import type { ValidityState } from '../../validity.js';
import type { RowFilter } from './rows.js';

const KINDS: { value: RowFilter['kind']; label: string }[] = [
  { value: 'all', label: 'All kinds' },
  { value: 'mapping', label: 'Mappings' },
  { value: 'threshold', label: 'Thresholds' },
];

const STATES: { value: 'all' | ValidityState; label: string }[] = [
  { value: 'all', label: 'Any state' },
  { value: 'running', label: 'Running' },
  { value: 'scheduled', label: 'Scheduled' },
  { value: 'ended', label: 'Ended' },
];

/** Props of {@link ServicesFilters}: the filter shown and where a change goes. */
export interface ServicesFiltersProps {
  filter: RowFilter;
  onChange: (filter: RowFilter) => void;
}

/** A search over service, field, value, level, name, description, tenant and group; kind and state selects. */
export function ServicesFilters({ filter, onChange }: ServicesFiltersProps) {
  return (
    <div class="services-filters" role="search" aria-label="Filter rules">
      <label>
        Search
        <input
          type="search"
          value={filter.search}
          placeholder="service, field, value, name, tenant, group…"
          onInput={(event) => onChange({ ...filter, search: event.currentTarget.value })}
        />
      </label>
      <label>
        Kind
        <select value={filter.kind} onChange={(event) => onChange({ ...filter, kind: event.currentTarget.value as RowFilter['kind'] })}>
          {KINDS.map((kind) => (
            <option key={kind.value} value={kind.value}>
              {kind.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        State
        <select value={filter.state} onChange={(event) => onChange({ ...filter, state: event.currentTarget.value as RowFilter['state'] })}>
          {STATES.map((state) => (
            <option key={state.value} value={state.value}>
              {state.label}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
