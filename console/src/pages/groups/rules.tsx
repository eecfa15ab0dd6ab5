/**
 * A group's rules (`GET H/groups/{id}/mappings` and `…/thresholds`): each mapping and threshold
 * with its service, field, value or level, type, cost (per unit of quantity per collection period)
 * and tenant, by names.
 */
import { mappingName, serviceOf, type Catalog, type Group, type Mapping, type Threshold } from '../../catalog.js';
import { Fault } from '../../components/fault.js';
import { StateBadge } from '../../components/state-badge.js';
import { validityState } from '../../validity.js';
import { listGroupRules, type GroupRules } from '../../api/hashmap.js';
import { countOf, formatDecimal, orDash } from '../../format.js';
import { useResource } from '../../use-resource.js';

/** The rules of `group`, read when shown; names from `catalog`. */
export function GroupRulesTable({ group, catalog }: { group: Group; catalog: Catalog }) {
  const { value: rules, fault, loading } = useResource<GroupRules>(() => listGroupRules(group), [group.group_id]);

  const titleId = `group-rules-${group.group_id}`;
  return (
    <section class="group-rules" aria-labelledby={titleId}>
      <h2 id={titleId}>Rules of group {group.name}</h2>
      <Fault message={fault} />
      {rules === undefined ? (
        loading && <p aria-busy="true">Loading the rules…</p>
      ) : rules.mappings.length + rules.thresholds.length === 0 ? (
        <p>No mapping or threshold belongs to {group.name}.</p>
      ) : (
        <>
          <p class="hint">
            {countOf(rules.mappings.length, 'mapping')} and {countOf(rules.thresholds.length, 'threshold')}; costs per unit of quantity per collection period
            (flat: per unit; rate: a factor of the price).
          </p>
          <table class="group-rules-table">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Service</th>
                <th scope="col">Field</th>
                <th scope="col">Value or level</th>
                <th scope="col">Type</th>
                <th scope="col">Cost</th>
                <th scope="col">Tenant</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {rules.mappings.map((mapping) => (
                <MappingRow key={mapping.mapping_id} mapping={mapping} catalog={catalog} />
              ))}
              {rules.thresholds.map((threshold) => (
                <ThresholdRow key={threshold.threshold_id} threshold={threshold} catalog={catalog} />
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

/** A rule's service and field names. */
function placeCells(catalog: Catalog, rule: Mapping | Threshold) {
  return (
    <>
      <td>{serviceOf(catalog, rule)?.name ?? '—'}</td>
      <td>{rule.field_id === null ? '—' : (catalog.fieldById.get(rule.field_id)?.name ?? '—')}</td>
    </>
  );
}

function MappingRow({ mapping, catalog }: { mapping: Mapping; catalog: Catalog }) {
  return (
    <tr data-rule="mapping">
      <th scope="row">mapping {mappingName(catalog, mapping)}</th>
      {placeCells(catalog, mapping)}
      <td>{orDash(mapping.value)}</td>
      <td>{mapping.type}</td>
      <td>{formatDecimal(mapping.cost)}</td>
      <td>{orDash(mapping.tenant_id)}</td>
      <td>
        <StateBadge state={validityState(mapping.start, mapping.end)} />
      </td>
    </tr>
  );
}

function ThresholdRow({ threshold, catalog }: { threshold: Threshold; catalog: Catalog }) {
  return (
    <tr data-rule="threshold">
      <th scope="row">threshold</th>
      {placeCells(catalog, threshold)}
      <td>{formatDecimal(threshold.level)}</td>
      <td>{threshold.type}</td>
      <td>{formatDecimal(threshold.cost)}</td>
      <td>{orDash(threshold.tenant_id)}</td>
      <td>—</td>
    </tr>
  );
}
