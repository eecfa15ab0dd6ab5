/** Groups: the groups rules belong to (to be built). */

/** The groups page. */
export function Groups() {
  return (
    <section>
      <h1>Groups</h1>
    </section>
  );
}
