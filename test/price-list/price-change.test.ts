/**
 * docs/price-list.md §2-3: a price change scheduled a day ahead. Quotes before the effective time
 * price with the old cost, quotes after it with the new one; the export at a later time shows the
 * new cost; the diff says `replaced`, with the stored rule before and the new one after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { QUOTE, applied, exported, isoFromNow, type PriceListDocument } from './price-list.js';

const document = (cost: string): PriceListDocument => ({
  modules: { hashmap: { enabled: true, priority: 1 } },
  services: {
    compute: {
      fields: {
        flavor: {
          mappings: [
            { value: 'm1.small', cost, name: 'small' },
            { value: 'm1.large', cost: '4', name: 'large' },
          ],
        },
      },
    },
  },
});

describe(`a scheduled price change on ${testDatabaseKind()}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  /** The price of `qty` m1.small instances at `at`. */
  async function price(at: string, flavor = 'm1.small', qty = '3'): Promise<string> {
    const response = await t.post(QUOTE, { usage: { compute: [{ vol: { unit: 'instance', qty }, groupby: { flavor }, metadata: {} }] }, at });
    expect(response.status, response.text).toBe(200);
    expect(response.body.total).toBe(response.body.usage.compute[0].rating.price);
    return response.body.total;
  }

  it('switches the cost at effective_at, and only then', async () => {
    const first = await applied(t, document('1.25'));
    const effectiveAt = isoFromNow(1);
    const soonAfter = isoFromNow(0.5);
    const later = isoFromNow(2);
    expect(await price(soonAfter)).toBe('3.75');

    const diff = await applied(t, document('2.5'), { effective_at: effectiveAt });
    expect(diff.revision).toBe(first.revision + 1);
    expect(diff.effective_at).toBe(effectiveAt);
    expect(diff.counts).toEqual({ added: 0, replaced: 1, ended: 0, deleted: 0, updated: 0, created: 0 });
    const [change] = diff.changes;
    expect(change).toEqual({
      action: 'replaced',
      resource: 'mapping',
      path: 'services[compute].fields[flavor].mappings[value=m1.small]',
      before: {
        mapping_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        service: 'compute',
        field: 'flavor',
        value: 'm1.small',
        type: 'flat',
        cost: '1.25',
        tenant_id: null,
        group: null,
        name: 'small',
        description: null,
        start: first.changes.find((c: any) => c.after?.name === 'small').after.start,
        end: null,
      },
      after: {
        service: 'compute',
        field: 'flavor',
        value: 'm1.small',
        type: 'flat',
        cost: '2.5',
        tenant_id: null,
        group: null,
        name: 'small',
        description: null,
        start: effectiveAt,
        end: null,
      },
    });

    // Quotes: the old price before, the new one from effective_at on; the other rule untouched.
    expect(await price(soonAfter)).toBe('3.75');
    expect(await price(new Date(Date.parse(effectiveAt) - 1000).toISOString())).toBe('3.75');
    expect(await price(effectiveAt)).toBe('7.5');
    expect(await price(later)).toBe('7.5');
    expect(await price(later, 'm1.large', '1')).toBe('4');

    // The exports: now, the old rule ending and the new one scheduled; later, only the new one.
    const now = await exported(t);
    expect(now.services.compute.fields.flavor.mappings).toEqual([
      { value: 'm1.large', cost: '4', name: 'large' },
      { value: 'm1.small', cost: '1.25', name: 'small', end: effectiveAt },
      { value: 'm1.small', cost: '2.5', name: 'small', start: effectiveAt },
    ]);
    const after = await exported(t, later);
    expect(after.revision).toBe(diff.revision);
    expect(after.at).toBe(later);
    expect(after.services.compute.fields.flavor.mappings).toEqual([
      { value: 'm1.large', cost: '4', name: 'large' },
      { value: 'm1.small', cost: '2.5', name: 'small' },
    ]);

    // The same change again at the same time: nothing to do.
    const again = await applied(t, document('2.5'), { effective_at: effectiveAt });
    expect(again.counts.replaced + again.counts.added + again.counts.ended + again.counts.deleted).toBe(0);
    expect(again.revision).toBe(diff.revision);
  });
});
