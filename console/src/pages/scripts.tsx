/** Scripts: the pyscripts module's scripts (to be built). */

/** The scripts page. */
export function Scripts() {
  return (
    <section>
      <h1>Scripts</h1>
    </section>
  );
}
