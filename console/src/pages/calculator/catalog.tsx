/**
 * The price calculator with the configuration's names (`rating:module_config`): the service chosen
 * from the hashmap's services, each of its fields with the values its mappings match offered, the
 * tenants the rules are written for offered, and the explanation naming each rule.
 */
import { useMemo, useState } from 'preact/hooks';
import type { QuoteAnswer } from '../../api/quote.js';
import { loadCatalog, type Catalog, type Field } from '../../catalog.js';
import { Fault } from '../../components/fault.js';
import { fromUtcDateTimeLocal, toUtcDateTimeLocal, UtcDateTimeInput } from '../../components/utc-datetime-input.js';
import { plainDecimal } from '../../decimal-text.js';
import { useResource } from '../../use-resource.js';
import { contributionRows } from './quote.js';
import { CalculatorResult } from './result.js';
import { useQuoteSubmission } from './submission.js';
import { QuantityInputs, TenantInput } from './usage-inputs.js';

/** How many of a field's known values its hint names (the list offers them all). */
const KNOWN_VALUES_NAMED = 5;

/** The values a field's mappings match, sorted: what the calculator offers for it. */
function knownValues(catalog: Catalog, field: Field): string[] {
  const values = new Set<string>();
  for (const mapping of catalog.mappings) if (mapping.field_id === field.field_id && mapping.value !== null) values.add(mapping.value);
  return [...values].sort();
}

/** The first few of `items`, joined, with `…` when there are more. */
function firstFew(items: string[]): string {
  return items.slice(0, KNOWN_VALUES_NAMED).join(', ') + (items.length > KNOWN_VALUES_NAMED ? ', …' : '');
}

/** What a field's control offers: how many known values, the first few, and its threshold levels. */
function knownValuesHint(catalog: Catalog, field: Field, values: string[]): string {
  const known = values.length === 0 ? 'no mapping value' : `${values.length} known: ${firstFew(values)}`;
  const levels = catalog.thresholds
    .filter((threshold) => threshold.field_id === field.field_id && threshold.level !== null)
    .map((threshold) => plainDecimal(threshold.level as string))
    .sort((left, right) => Number(left) - Number(right));
  return levels.length === 0 ? known : `${known}; thresholds at ${firstFew([...new Set(levels)])}`;
}

/** Every tenant some rule is written for, sorted. */
function knownTenants(catalog: Catalog): string[] {
  const tenants = new Set<string>();
  for (const rule of [...catalog.mappings, ...catalog.thresholds]) if (rule.tenant_id !== null) tenants.add(rule.tenant_id);
  return [...tenants].sort();
}

/** Whether every rule the answer explains is in the catalog (else it was created since it loaded). */
function namesEveryRule(answer: QuoteAnswer, catalog: Catalog): boolean {
  const known = new Set([...catalog.mappings.map((mapping) => mapping.mapping_id), ...catalog.thresholds.map((threshold) => threshold.threshold_id)]);
  return Object.values(answer.usage)
    .flat()
    .every((point) => (point.explain ?? []).every((entry) => entry.rule_id === undefined || known.has(entry.rule_id)));
}

/** The calculator's form with the configuration's names, and the quote's answer. */
export function CatalogCalculator() {
  const { value: loaded, fault: loadFault, loading } = useResource<Catalog>(loadCatalog);
  // The configuration read again to name a rule created since the page loaded it: shown from then on.
  const [reread, setReread] = useState<Catalog | undefined>();
  const catalog = reread ?? loaded;
  const [chosenServiceId, setServiceId] = useState('');
  // The first service of the page's load until one is chosen (a later read does not change it).
  const serviceId = chosenServiceId || (loaded?.services[0]?.service_id ?? '');
  const [fieldValues, setFieldValues] = useState<Record<string, string>>({});
  const [quantity, setQuantity] = useState('1');
  const [unit, setUnit] = useState('');
  const [tenant, setTenant] = useState('');
  const [ratedAt, setRatedAt] = useState(() => toUtcDateTimeLocal(new Date()));
  const submission = useQuoteSubmission();

  const fields = useMemo(() => (catalog?.fields ?? []).filter((field) => field.service_id === serviceId), [catalog, serviceId]);
  const tenants = useMemo(() => (catalog === undefined ? [] : knownTenants(catalog)), [catalog]);

  const chooseService = (id: string) => {
    setServiceId(id);
    setFieldValues({});
    submission.clear();
  };

  const quote = async (event: Event) => {
    event.preventDefault();
    if (catalog === undefined) return;
    const service = catalog.serviceById.get(serviceId);
    if (service === undefined) return;
    const byName: Record<string, string> = {};
    for (const field of fields) byName[field.name] = fieldValues[field.field_id] ?? '';
    await submission.submit({ service: service.name, fieldValues: byName, quantity, unit, tenant, at: fromUtcDateTimeLocal(ratedAt) }, async (answer) => {
      let naming = catalog;
      if (!namesEveryRule(answer, catalog)) {
        naming = await loadCatalog();
        setReread(naming);
      }
      return contributionRows(answer, naming);
    });
  };

  return (
    <>
      <Fault message={loadFault} />
      {catalog === undefined ? (
        loading && <p aria-busy="true">Loading the services…</p>
      ) : catalog.services.length === 0 ? (
        <p class="hint">There is no service yet: create one on the Services page or apply a price list.</p>
      ) : (
        <form class="calculator-form" onSubmit={(event) => void quote(event)}>
          <div>
            <label for="calculator-service">Service</label>
            <select id="calculator-service" value={serviceId} onChange={(event) => chooseService(event.currentTarget.value)}>
              {catalog.services.map((service) => (
                <option key={service.service_id} value={service.service_id}>
                  {service.name}
                </option>
              ))}
            </select>
          </div>
          <fieldset>
            <legend>Fields</legend>
            {fields.length === 0 && <p class="hint">This service has no field: only its service rules apply.</p>}
            {fields.map((field) => {
              const values = knownValues(catalog, field);
              const listId = `calculator-known-${field.field_id}`;
              return (
                <div key={field.field_id}>
                  <label for={`calculator-field-${field.field_id}`}>{field.name}</label>
                  <input
                    id={`calculator-field-${field.field_id}`}
                    type="text"
                    list={listId}
                    autocomplete="off"
                    value={fieldValues[field.field_id] ?? ''}
                    aria-describedby={`${listId}-hint`}
                    onInput={(event) => setFieldValues({ ...fieldValues, [field.field_id]: event.currentTarget.value })}
                  />
                  <datalist id={listId}>
                    {values.map((value) => (
                      <option key={value} value={value} />
                    ))}
                  </datalist>
                  <small id={`${listId}-hint`} class="hint">
                    {knownValuesHint(catalog, field, values)}; empty: absent from the usage
                  </small>
                </div>
              );
            })}
          </fieldset>
          <QuantityInputs quantity={quantity} unit={unit} onQuantity={setQuantity} onUnit={setUnit} />
          <TenantInput tenant={tenant} known={tenants} onTenant={setTenant} />
          <UtcDateTimeInput id="calculator-at" label="Rating time" value={ratedAt} onInput={setRatedAt} hint="Rules in force at this time apply; empty: now." />
          <button type="submit" disabled={submission.busy}>
            {submission.busy ? 'Quoting…' : 'Quote'}
          </button>
        </form>
      )}
      <Fault message={submission.fault} />
      <div aria-live="polite">{submission.result !== undefined && <CalculatorResult result={submission.result} />}</div>
    </>
  );
}
