/**
 * The audit trail of a price-list apply (issue 26, api.md §9): an apply records its own entry and
 * one change per rule, parent or module state it creates, ends, deletes or changes: kind, object
 * id, name (its place in the document), before and after, the acting user, the apply's revision
 * and request id, all in the apply's transaction. `GET /v2/rating/changes` filters them by
 * `object_id` and `revision`. An apply that fails after some of its rules and some of its audit
 * rows were written (a database trigger refuses one audit row) leaves neither. The killed apply is
 * in atomicity.test.ts.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, startTestApp, type TestApp } from '../helpers/app.js';
import { perDatabase } from '../helpers/database-kind.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { apply, applied, exported, isoFromNow, PRICE_LIST, type PriceListDocument } from './price-list.js';

const CHANGES = '/v2/rating/changes';
const USER = 'price-setter';

/** The flavors' prices: three mappings of one field. */
function prices(small: string, medium: string, large: string): PriceListDocument {
  return {
    services: {
      compute: {
        fields: {
          flavor: {
            mappings: [
              { value: 'm1.small', cost: small, name: 'small' },
              { value: 'm1.medium', cost: medium, name: 'medium' },
              { value: 'm1.large', cost: large, name: 'large' },
            ],
          },
        },
      },
    },
  };
}

describe(`the audit trail of a price-list apply on ${testDatabaseKind()}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  async function changes(query: string): Promise<{ total: number; changes: any[] }> {
    const response = await t.get(`${CHANGES}?${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body;
  }

  /** The live mapping of `value`, as the API shows it. */
  async function mappingOf(value: string): Promise<any> {
    const response = await t.get(`${H}/mappings`);
    expect(response.status, response.text).toBe(200);
    const mappings = response.body.mappings as any[];
    const live = mappings.filter((mapping) => mapping.value === value && mapping.end === null);
    expect(live).toHaveLength(1);
    return live[0];
  }

  it('records 3 rule changes and the apply for 3 changed prices, by name, with the acting user, revision and request id', async () => {
    await applied(t, prices('0.02', '0.04', '0.08'));
    const old = await mappingOf('m1.large');
    const totalBefore = (await changes('limit=1')).total;

    const answer = await t.post(PRICE_LIST, prices('0.025', '0.05', '0.10'), { 'x-user-id': USER });
    expect(answer.status, answer.text).toBe(200);
    const diff = answer.body;
    expect(diff.counts.replaced).toBe(3);
    const requestId = answer.headers['x-openstack-request-id'];

    const recorded = await changes(`revision=${diff.revision}`);
    expect(recorded.total).toBe(4);
    expect((await changes('limit=1')).total).toBe(totalBefore + 4);
    const [entry, ...rules] = recorded.changes;
    // The apply's entry is the newest; its rule changes come just before it, in the diff's order.
    expect(entry).toMatchObject({ kind: 'price_list', object_id: String(diff.revision), action: 'update', revision: diff.revision, name: null });
    expect(rules.map((change) => change.name).reverse()).toEqual(diff.changes.map((change: any) => change.path));
    for (const change of [entry, ...rules]) {
      expect(change).toMatchObject({ user_id: USER, project_id: null, request_id: requestId, route: 'POST /v2/rating/price_list', revision: diff.revision });
    }

    // "Who changed m1.large from 0.08 to 0.10, and when": by the id of the mapping now in force.
    const large = await mappingOf('m1.large');
    const history = await changes(`object_id=${large.mapping_id}`);
    expect(history.total).toBe(1);
    expect(history.changes[0]).toMatchObject({
      kind: 'mapping',
      object_id: large.mapping_id,
      action: 'replace',
      name: 'services[compute].fields[flavor].mappings[value=m1.large]',
      user_id: USER,
      before: { mapping_id: old.mapping_id, cost: '0.08', name: 'large' },
      after: { mapping_id: large.mapping_id, cost: '0.1', name: 'large' },
    });
    expect(Date.parse(history.changes[0].at)).toBeLessThanOrEqual(Date.now());
    // The ended version's creation is found by its own id, as the first apply's rule change.
    expect((await changes(`object_id=${old.mapping_id}`)).changes).toEqual([
      expect.objectContaining({ action: 'create', after: expect.objectContaining({ mapping_id: old.mapping_id, cost: '0.08' }) }),
    ]);
    // Filters combine.
    expect((await changes(`revision=${diff.revision}&kind=mapping`)).total).toBe(3);
    expect((await changes(`revision=${diff.revision}&object_id=${large.mapping_id}`)).total).toBe(1);
    expect((await changes(`revision=${diff.revision - 1}&object_id=${large.mapping_id}`)).total).toBe(0);
  });

  it('records an apply without X-User-Id as anonymous, never unknown', async () => {
    const diff = await applied(t, prices('0.03', '0.05', '0.10'));
    const recorded = await changes(`revision=${diff.revision}`);
    expect(recorded.total).toBe(2);
    expect(recorded.changes.map((change) => change.user_id)).toEqual(['anonymous', 'anonymous']);
    // CloudKitty's own audit column keeps its word (CloudKitty compat).
    expect((await mappingOf('m1.small')).created_by).toBe('unknown');
  });

  it('records every kind of change: created parents, added, ended and deleted rules, thresholds, module states', async () => {
    const document: PriceListDocument = {
      modules: { hashmap: { enabled: true, priority: 7 } },
      groups: ['audited'],
      services: {
        volume: { mappings: [{ cost: '1', group: 'audited' }], thresholds: [{ level: '10', cost: '0.5' }] },
        compute: { fields: { flavor: { mappings: [{ value: 'm1.small', cost: '0.03', name: 'small' }] } } },
      },
    };
    const diff = await applied(t, document, { unversioned_now: true });
    const recorded = await changes(`revision=${diff.revision}&limit=100`);
    expect(recorded.total).toBe(diff.changes.length + 1);
    const byName = new Map(recorded.changes.map((change) => [change.name, change]));
    expect(byName.get('modules[hashmap]')).toMatchObject({ kind: 'module', object_id: 'hashmap', action: 'update', after: { priority: 7 } });
    const group = byName.get('groups[audited]');
    expect(group).toMatchObject({ kind: 'group', action: 'create', before: null });
    expect((await t.get(`${H}/groups/${group.object_id}`)).body.name).toBe('audited');
    const service = byName.get('services[volume]');
    expect((await t.get(`${H}/services/${service.object_id}`)).body.name).toBe('volume');
    const threshold = recorded.changes.find((change) => change.kind === 'threshold');
    expect(threshold).toMatchObject({ action: 'create', after: { threshold_id: threshold.object_id, level: '10' } });
    expect((await t.get(`${H}/thresholds/${threshold.object_id}`)).status).toBe(200);
    // m1.medium and m1.large are left out: they end now (or, started within this second, are deleted).
    const dropped = recorded.changes.filter((change) => ['m1.medium', 'm1.large'].includes(change.before?.value));
    expect(dropped).toHaveLength(2);
    for (const change of dropped) {
      if (change.action === 'end') expect(change.after).toMatchObject({ mapping_id: change.object_id, end: diff.effective_at });
      else expect(change).toMatchObject({ action: 'delete', after: null });
      expect(change.object_id).toBe(change.before.mapping_id);
    }

    // A mapping scheduled ahead and then dropped never started: deleted.
    const scheduled = structuredClone(document);
    scheduled.services.compute.fields.flavor.mappings.push({ value: 'm1.later', cost: '1', start: isoFromNow(1) });
    await applied(t, scheduled);
    const withoutLater = await applied(t, document);
    const [deleted] = (await changes(`revision=${withoutLater.revision}&kind=mapping`)).changes;
    expect(deleted).toMatchObject({ action: 'delete', before: { value: 'm1.later' }, after: null });
  });

  it('records nothing when the apply fails after some of its rules and audit rows were written', async () => {
    const trigger = perDatabase({
      sqlite: [
        `create trigger audit_refused before insert on tariff_changes when new.name like '%m1.refused%' begin select raise(abort, 'audit row refused'); end`,
      ],
      postgres: [
        `create function audit_refused() returns trigger language plpgsql as $$ begin if new.name like '%m1.refused%' then raise exception 'audit row refused'; end if; return new; end $$`,
        `create trigger audit_refused before insert on tariff_changes for each row execute function audit_refused()`,
      ],
      mysql: [
        `create trigger audit_refused before insert on tariff_changes for each row begin if new.name like '%m1.refused%' then signal sqlstate '45000' set message_text = 'audit row refused'; end if; end`,
      ],
    });
    const drop = perDatabase({
      sqlite: ['drop trigger audit_refused'],
      postgres: ['drop trigger audit_refused on tariff_changes', 'drop function audit_refused()'],
      mysql: ['drop trigger audit_refused'],
    });
    for (const statement of trigger) await sql.raw(statement).execute(t.database.db);
    try {
      const before = await exported(t);
      const totalBefore = (await changes('limit=1')).total;
      const mappingsBefore = (await t.get(`${H}/mappings`)).body.mappings.length;
      // 700 new mappings, then the refused one: the first 500 audit rows are inserted, the next statement fails.
      const document = structuredClone(prices('0.04', '0.06', '0.12'));
      const mappings = document.services.compute.fields.flavor.mappings;
      for (let index = 0; index < 700; index += 1) mappings.push({ value: `m1.bulk${index}`, cost: '1' });
      mappings.push({ value: 'm1.refused', cost: '1' });
      const answer = await apply(t, document);
      expect(answer.status, answer.text).toBeGreaterThanOrEqual(500);
      expect(answer.text).not.toContain('m1.bulk');

      const after = await exported(t);
      expect(after).toEqual({ ...before, at: after.at });
      expect((await changes('limit=1')).total).toBe(totalBefore);
      expect((await changes(`revision=${before.revision + 1}`)).total).toBe(0);
      expect((await t.get(`${H}/mappings`)).body.mappings.length).toBe(mappingsBefore);
    } finally {
      for (const statement of drop) await sql.raw(statement).execute(t.database.db);
    }
    // The same document without the refused rule is applied and recorded whole.
    const diff = await applied(t, prices('0.04', '0.06', '0.12'));
    expect((await changes(`revision=${diff.revision}`)).total).toBe(1 + diff.changes.length);
  });

  it('answers 400 naming object_id or revision when one is not valid', async () => {
    for (const [query, name] of [
      ['object_id=', 'object_id'],
      [`object_id=${'x'.repeat(256)}`, 'object_id'],
      ['revision=-1', 'revision'],
      ['revision=1.5', 'revision'],
      ['revision=abc', 'revision'],
      ['revision=12345678901', 'revision'],
      ['revision=1&revision=2', 'revision'],
    ]) {
      const answer = await t.get(`${CHANGES}?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.faultstring, query).toContain(name);
    }
    expect((await changes(`object_id=${'x'.repeat(255)}`)).total).toBe(0);
  });
});
