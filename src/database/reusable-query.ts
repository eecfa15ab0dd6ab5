/**
 * Queries built and compiled once, then run with new parameter values: Kysely otherwise rebuilds
 * and recompiles the same SQL on every call, which was a fifth of the CPU of getting one mapping
 * and a few percent of every configuration write (measured with bench/ --cpu-prof). For hot
 * paths only.
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/** Stands for parameter `name` while compiling; never a value a client can send (NUL is refused). */
const MARKER_START = '\u0000tariff-parameter-';
const MARKER_END = '\u0000';
const marker = (name: string) => `${MARKER_START}${name}${MARKER_END}`;

/** One parameter of a compiled query: a named value given at each run, or a constant of the build. */
type Slot = { name: string } | { constant: unknown };

/**
 * A query with named parameters, compiled on first use for each database (dialects compile
 * differently). `Tables` is the schema it touches, `Row` what it returns, `Names` its
 * parameters' names (`never`: none).
 */
export class ReusableStatement<Tables, Row, Names extends string = never> {
  private readonly compiled = new WeakMap<object, { query: CompiledQuery<Row>; slots: Slot[] }>();

  /**
   * @param build - builds the query on `db`, with `parameters[name]` in place of each value
   *   (a stand-in string: use it where the value goes, never transform it).
   */
  constructor(private readonly build: (db: Kysely<Tables>, parameters: Record<Names, string>) => Compilable<Row>) {}

  /**
   * Runs the query on `db` (a database or one of its transactions) with `values`.
   *
   * @throws Error when the build used a stand-in other than as a whole value (a bug, at first use).
   */
  async execute(db: Kysely<Tables>, values: Record<Names, unknown>): Promise<Row[]> {
    const adapter = db.getExecutor().adapter;
    let compiled = this.compiled.get(adapter);
    if (compiled === undefined) {
      const markers = new Proxy({} as Record<Names, string>, { get: (_target, name) => marker(String(name)) });
      const query = this.build(db, markers).compile();
      const slots = query.parameters.map((parameter): Slot => {
        if (typeof parameter !== 'string' || !parameter.includes(MARKER_START)) return { constant: parameter };
        if (!parameter.startsWith(MARKER_START) || !parameter.endsWith(MARKER_END))
          throw new Error(`a parameter was transformed while compiling: ${query.sql}`);
        return { name: parameter.slice(MARKER_START.length, -MARKER_END.length) };
      });
      compiled = { query, slots };
      this.compiled.set(adapter, compiled);
    }
    const parameters = compiled.slots.map((slot) => ('name' in slot ? values[slot.name as Names] : slot.constant));
    const result = await db.executeQuery<Row>({ ...compiled.query, parameters });
    return result.rows;
  }
}

/** A one-parameter {@link ReusableStatement}: the hot reads by one id. */
export class ReusableQuery<Tables, Row> {
  private readonly statement: ReusableStatement<Tables, Row, 'value'>;

  /** @param build - builds the query on `db` with `parameter` in place of the value. */
  constructor(build: (db: Kysely<Tables>, parameter: string) => Compilable<Row>) {
    this.statement = new ReusableStatement((db, { value }) => build(db, value));
  }

  /** Runs the query on `db` (a database or one of its transactions) with `value` as the parameter. */
  execute(db: Kysely<Tables>, value: string): Promise<Row[]> {
    return this.statement.execute(db, { value });
  }
}
