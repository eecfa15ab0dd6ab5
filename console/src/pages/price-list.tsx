/** PriceList: the whole configuration as one document (to be built). */

/** The price-list page. */
export function PriceList() {
  return (
    <section>
      <h1>Price list</h1>
    </section>
  );
}
