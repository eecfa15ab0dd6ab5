/**
 * Price calculator: a usage described in CloudKitty's terms (a service, its field values, a
 * quantity, a tenant and a rating time) priced by `POST /v2/rating/quote` with `explain`, showing
 * the exact total and which rule added what, by name.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, messageOf } from '../api.js';
import { loadCatalog, type Catalog, type Field } from '../catalog.js';
import { Fault } from '../components/fault.js';
import { fromUtcDateTimeLocal, toUtcDateTimeLocal, UtcDateTimeInput } from '../components/utc-datetime-input.js';
import { plainDecimal } from '../decimal-text.js';
import { contributionRows, quoteBody, type QuoteAnswer } from './calculator-quote.js';
import { CalculatorResult, type QuoteResult } from './calculator-result.js';
import './calculator.css';

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

/** The price calculator page. */
export function Calculator() {
  const [catalog, setCatalog] = useState<Catalog | undefined>();
  const [loadFault, setLoadFault] = useState<string | undefined>();
  const [serviceId, setServiceId] = useState('');
  const [fieldValues, setFieldValues] = useState<Record<string, string>>({});
  const [quantity, setQuantity] = useState('1');
  const [unit, setUnit] = useState('');
  const [tenant, setTenant] = useState('');
  const [ratedAt, setRatedAt] = useState(() => toUtcDateTimeLocal(new Date()));
  const [result, setResult] = useState<QuoteResult | undefined>();
  const [quoteFault, setQuoteFault] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    loadCatalog().then(
      (loaded) => {
        setCatalog(loaded);
        setServiceId((current) => current || (loaded.services[0]?.service_id ?? ''));
      },
      (error: unknown) => setLoadFault(messageOf(error)),
    );
  }, []);

  const fields = useMemo(() => (catalog?.fields ?? []).filter((field) => field.service_id === serviceId), [catalog, serviceId]);
  const tenants = useMemo(() => (catalog === undefined ? [] : knownTenants(catalog)), [catalog]);

  const chooseService = (id: string) => {
    setServiceId(id);
    setFieldValues({});
    setResult(undefined);
    setQuoteFault(undefined);
  };

  const quote = async (event: Event) => {
    event.preventDefault();
    if (catalog === undefined) return;
    const service = catalog.serviceById.get(serviceId);
    if (service === undefined) return;
    setBusy(true);
    setQuoteFault(undefined);
    const at = fromUtcDateTimeLocal(ratedAt);
    const byName: Record<string, string> = {};
    for (const field of fields) byName[field.name] = fieldValues[field.field_id] ?? '';
    try {
      const answer = await call<QuoteAnswer>('POST', '/v2/rating/quote', quoteBody({ service: service.name, fieldValues: byName, quantity, unit, tenant, at }));
      let naming = catalog;
      if (!namesEveryRule(answer, catalog)) {
        naming = await loadCatalog();
        setCatalog(naming);
      }
      setResult({ total: answer.total, ratedAt: answer.period.begin, tenant: tenant === '' ? undefined : tenant, rows: contributionRows(answer, naming) });
    } catch (error) {
      setResult(undefined);
      setQuoteFault(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="calculator">
      <h1>Price calculator</h1>
      <p class="hint">
        Describe a usage as CloudKitty’s collector would: a service, its field values, the quantity used in one collection period, and the tenant. The quote
        applies the rules of the enabled modules in force at the rating time.
      </p>
      <Fault message={loadFault} />
      {catalog === undefined ? (
        loadFault === undefined && <p aria-busy="true">Loading the services…</p>
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
          <div class="calculator-quantity">
            <div>
              <label for="calculator-quantity">Quantity</label>
              <input id="calculator-quantity" type="text" inputMode="decimal" value={quantity} onInput={(event) => setQuantity(event.currentTarget.value)} />
            </div>
            <div>
              <label for="calculator-unit">Unit (optional)</label>
              <input id="calculator-unit" type="text" value={unit} onInput={(event) => setUnit(event.currentTarget.value)} />
            </div>
          </div>
          <div>
            <label for="calculator-tenant">Tenant (optional)</label>
            <input
              id="calculator-tenant"
              type="text"
              list="calculator-known-tenants"
              autocomplete="off"
              value={tenant}
              aria-describedby="calculator-tenant-hint"
              onInput={(event) => setTenant(event.currentTarget.value)}
            />
            <datalist id="calculator-known-tenants">
              {tenants.map((known) => (
                <option key={known} value={known} />
              ))}
            </datalist>
            <small id="calculator-tenant-hint" class="hint">
              A tenant’s own rules replace the global ones with the same key; empty: global rules only.
            </small>
          </div>
          <UtcDateTimeInput id="calculator-at" label="Rating time" value={ratedAt} onInput={setRatedAt} hint="Rules in force at this time apply; empty: now." />
          <button type="submit" disabled={busy}>
            {busy ? 'Quoting…' : 'Quote'}
          </button>
        </form>
      )}
      <Fault message={quoteFault} />
      <div aria-live="polite">{result !== undefined && <CalculatorResult result={result} />}</div>
    </section>
  );
}
