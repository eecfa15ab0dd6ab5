/** The calculator's answer: the quote's total and which rule added what. */
import { formatDateTime } from '../../validity.js';
import { plainDecimal } from '../../decimal-text.js';
import type { ContributionRow } from './quote.js';

/** A priced usage as the calculator shows it. */
export interface QuoteResult {
  /** The total price for the collection period, exact decimal text. */
  total: string;
  /** The rating time the server used (the period's begin), ISO text. */
  ratedAt: string;
  /** The tenant whose rules applied too; undefined: global rules only. */
  tenant: string | undefined;
  rows: ContributionRow[];
}

/** Why a usage may have a price of nothing. */
const NOTHING_ADDED = 'No rule added anything to this usage (are its rules in an enabled module, and in force at this time?).';
/** The same for typed names, which may be misspelled. */
const NOTHING_ADDED_TO_TYPED_USAGE =
  'No rule added anything to this usage (are the service and field names spelled as in the rating configuration, its rules in an enabled module, and in force at this time?).';

/**
 * The total and the explanation table. `quoteOnly`: the usage's names were typed and the rules
 * cannot be named (the configuration is unreadable), so the table has no rule column.
 */
export function CalculatorResult({ result, quoteOnly = false }: { result: QuoteResult; quoteOnly?: boolean }) {
  return (
    <section class="calculator-result" aria-labelledby="calculator-result-heading">
      <h2 id="calculator-result-heading">Quote</h2>
      <p class="calculator-total">
        Total: <output data-total>{plainDecimal(result.total)}</output>
        <span class="hint">
          {' '}
          for the collection period, rated at {formatDateTime(result.ratedAt)}
          {result.tenant === undefined ? ', global rules only' : `, tenant ${result.tenant}`}
        </span>
      </p>
      {result.rows.length === 0 ? (
        <p class="hint">{quoteOnly ? NOTHING_ADDED_TO_TYPED_USAGE : NOTHING_ADDED}</p>
      ) : (
        <table class="calculator-explain">
          <caption>
            {quoteOnly
              ? 'Which kind of rule added what (a group’s amount is shown on each of its rules; the rules are not named, their names being part of the rating configuration)'
              : 'Which rule added what (a group’s amount is shown on each of its rules)'}
          </caption>
          <thead>
            <tr>
              <th scope="col">Module</th>
              <th scope="col">Group</th>
              <th scope="col">Kind</th>
              {!quoteOnly && <th scope="col">Rule</th>}
              <th scope="col">Type</th>
              <th scope="col">Cost</th>
              <th scope="col">Group’s amount</th>
            </tr>
          </thead>
          <tbody>
            {result.rows.map((row, index) => (
              <tr key={index}>
                <td>{row.module}</td>
                <td>{row.group}</td>
                <td>{row.kind}</td>
                {!quoteOnly && <td>{row.rule}</td>}
                <td>{row.type}</td>
                <td class="number">{row.cost}</td>
                <td class="number">{row.amount}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
