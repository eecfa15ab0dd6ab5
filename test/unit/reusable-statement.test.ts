/**
 * ReusableStatement / ReusableQuery (src/database/reusable-query.ts): compiled once, run with new
 * values on a real SQLite database; named parameters land in their own columns whatever their
 * order in the SQL, constants of the build stay, and a stand-in used as anything but a whole value
 * is refused instead of running wrong SQL.
 */
import fc from 'fast-check';
import { sql, type Generated, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/database/connection.js';
import { ReusableQuery, ReusableStatement } from '../../src/database/reusable-query.js';

interface Tables {
  notes: { id: Generated<number>; kind: string; body: string | null; weight: number };
}

describe('ReusableStatement', () => {
  let database: Database;
  let db: Kysely<Tables>;
  beforeAll(async () => {
    database = openDatabase('sqlite::memory:', { poolSize: 1 });
    db = database.db as unknown as Kysely<Tables>;
    await sql`create table notes (id integer primary key, kind text not null, body text, weight integer not null)`.execute(db);
  });
  afterAll(async () => {
    await database.close();
  });

  const insert = new ReusableStatement<Tables, unknown, 'body' | 'kind'>((target, value) =>
    // `weight` is a constant of the build; the names come in the other order than the columns.
    target.insertInto('notes').values({ body: value.body, weight: 7, kind: value.kind }),
  );
  const byKind = new ReusableQuery((target: Kysely<Tables>, kind: string) => target.selectFrom('notes').selectAll().where('kind', '=', kind).orderBy('id'));

  it('puts every named value in its column and keeps the constants, run after run', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 20 }), fc.option(fc.string({ maxLength: 50 })), async (kind, body) => {
        await sql`delete from notes`.execute(db);
        await insert.execute(db, { kind, body });
        await insert.execute(db, { kind: `${kind}-other`, body: null });
        expect(await byKind.execute(db, kind)).toEqual([expect.objectContaining({ kind, body, weight: 7 })]);
      }),
      { numRuns: 50 },
    );
  });

  it('refuses a stand-in the build transformed, instead of running SQL with it', async () => {
    const transformed = new ReusableStatement<Tables, unknown, 'kind'>((target, value) =>
      target.selectFrom('notes').selectAll().where('kind', '=', `${value.kind}%`),
    );
    await expect(transformed.execute(db, { kind: 'x' })).rejects.toThrow(/transformed while compiling/);
  });
});
