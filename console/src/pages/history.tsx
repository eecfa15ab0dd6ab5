/** History: a rule's versions over time (to be built). */

/** The history page. */
export function History({ kind, name }: { kind?: string; name?: string }) {
  void kind;
  void name;
  return (
    <section>
      <h1>History</h1>
    </section>
  );
}
