/**
 * The quote-only price calculator, for a user whom `rating:quote` allows but not
 * `rating:module_config` (a project member under CloudKitty's default policy): the service, the
 * fields and their values are typed, since reading the configuration's names would be refused;
 * the only call is `POST /v2/rating/quote`. Its explanation shows what the answer gives (module,
 * group, kind, type, cost, amount), not the rules' names.
 */
import { useState } from 'preact/hooks';
import { Fault } from '../../components/fault.js';
import { fromUtcDateTimeLocal, toUtcDateTimeLocal, UtcDateTimeInput } from '../../components/utc-datetime-input.js';
import { contributionRows } from './quote.js';
import { CalculatorResult } from './result.js';
import { useQuoteSubmission } from './submission.js';
import { emptyTypedField, typedFieldValues, TypedFields, type TypedField } from './typed-fields.js';
import { QuantityInputs, TenantInput } from './usage-inputs.js';

/** The calculator's form with typed names, and the quote's answer. */
export function QuoteOnlyCalculator() {
  const [service, setService] = useState('');
  const [fields, setFields] = useState<TypedField[]>(() => [emptyTypedField([])]);
  const [quantity, setQuantity] = useState('1');
  const [unit, setUnit] = useState('');
  const [tenant, setTenant] = useState('');
  const [ratedAt, setRatedAt] = useState(() => toUtcDateTimeLocal(new Date()));
  const submission = useQuoteSubmission();

  const quote = async (event: Event) => {
    event.preventDefault();
    const typed = typedFieldValues(fields);
    if ('fault' in typed) return submission.refuse(typed.fault);
    await submission.submit({ service: service.trim(), fieldValues: typed.values, quantity, unit, tenant, at: fromUtcDateTimeLocal(ratedAt) }, (answer) =>
      contributionRows(answer, undefined),
    );
  };

  return (
    <>
      <p class="hint calculator-quote-only">
        The known services, fields and values are not offered: your role does not allow reading the rating configuration (rating:module_config). Type them as
        the configuration spells them.
      </p>
      <form class="calculator-form" onSubmit={(event) => void quote(event)}>
        <div>
          <label for="calculator-service">Service</label>
          <input
            id="calculator-service"
            type="text"
            required
            autocomplete="off"
            value={service}
            aria-describedby="calculator-service-hint"
            onInput={(event) => setService(event.currentTarget.value)}
          />
          <small id="calculator-service-hint" class="hint">
            The service’s name, as CloudKitty’s collector names the metric (such as instance).
          </small>
        </div>
        <TypedFields fields={fields} onChange={setFields} />
        <QuantityInputs quantity={quantity} unit={unit} onQuantity={setQuantity} onUnit={setUnit} />
        <TenantInput tenant={tenant} onTenant={setTenant} />
        <UtcDateTimeInput id="calculator-at" label="Rating time" value={ratedAt} onInput={setRatedAt} hint="Rules in force at this time apply; empty: now." />
        <button type="submit" disabled={submission.busy}>
          {submission.busy ? 'Quoting…' : 'Quote'}
        </button>
      </form>
      <Fault message={submission.fault} />
      <div aria-live="polite">{submission.result !== undefined && <CalculatorResult result={submission.result} quoteOnly />}</div>
    </>
  );
}
