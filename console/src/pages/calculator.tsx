/** Calculator: a price for a usage, with what each rule added (to be built). */

/** The calculator page. */
export function Calculator() {
  return (
    <section>
      <h1>Price calculator</h1>
    </section>
  );
}
