/** Services: each service's fields, mappings and thresholds (to be built). */

/** The services page. */
export function Services() {
  return (
    <section>
      <h1>Services</h1>
    </section>
  );
}
