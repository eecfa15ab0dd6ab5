/**
 * Price calculator: a usage described in CloudKitty's terms (a service, its field values, a
 * quantity, a tenant and a rating time) priced by `POST /v2/rating/quote` with `explain`, showing
 * the exact total and what each rule added. Its form depends on the user's policy: with
 * `rating:module_config` the configuration's names are offered and each rule is named
 * (`CatalogCalculator`); with `rating:quote` alone the names are typed (`QuoteOnlyCalculator`).
 */
import { useSession } from '../../session.js';
import { CatalogCalculator } from './catalog.js';
import { QuoteOnlyCalculator } from './quote-only.js';
import './calculator.css';

/** The price calculator page. */
export function Calculator() {
  const mayReadConfiguration = useSession().can('rating:module_config');
  return (
    <section class="calculator">
      <h1>Price calculator</h1>
      <p class="hint">
        Describe a usage as CloudKitty’s collector would: a service, its field values, the quantity used in one collection period, and the tenant. The quote
        applies the rules of the enabled modules in force at the rating time.
      </p>
      {mayReadConfiguration ? <CatalogCalculator /> : <QuoteOnlyCalculator />}
    </section>
  );
}
