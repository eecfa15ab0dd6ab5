/**
 * A query built and compiled once, then run with a new parameter value: Kysely otherwise rebuilds
 * and recompiles the same SQL on every call, which was a fifth of the CPU of getting one mapping
 * (measured with bench/ --cpu-prof). For hot paths only.
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/** Stands for the parameter while compiling; never a value a client can send (NUL is refused). */
const PLACEHOLDER = '\u0000tariff-parameter\u0000';

/**
 * A one-parameter query, compiled on first use for each database (dialects compile differently).
 * `Tables` is the schema the query reads (a module's own tables).
 */
export class ReusableQuery<Tables, Row> {
  private readonly compiled = new WeakMap<object, CompiledQuery<Row>>();

  /** @param build - builds the query on `db` with `parameter` in place of the value. */
  constructor(private readonly build: (db: Kysely<Tables>, parameter: string) => Compilable<Row>) {}

  /** Runs the query on `db` (a database or one of its transactions) with `value` as the parameter. */
  async execute(db: Kysely<Tables>, value: string): Promise<Row[]> {
    const adapter = db.getExecutor().adapter;
    let compiled = this.compiled.get(adapter);
    if (!compiled) {
      compiled = this.build(db, PLACEHOLDER).compile();
      this.compiled.set(adapter, compiled);
    }
    const parameters = compiled.parameters.map((parameter) => (parameter === PLACEHOLDER ? value : parameter));
    const result = await db.executeQuery<Row>({ ...compiled, parameters });
    return result.rows;
  }
}
