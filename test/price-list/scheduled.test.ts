/**
 * docs/price-list.md §2-3, scheduled applies: thresholds and module states are not versioned (a
 * later effective_at that changes them is refused unless unversioned_now=true); effective_at in the
 * past is refused; a stored rule the document leaves out is ended at effective_at, a scheduled one
 * deleted.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { H, startTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { NO_CHANGES, apply, applied, exported, isoFromNow, type PriceListDocument } from './price-list.js';

function base(extra: { threshold?: string; mappings?: PriceListDocument[]; enabled?: boolean } = {}): PriceListDocument {
  return {
    modules: { hashmap: { enabled: extra.enabled ?? true, priority: 1 } },
    services: {
      volume: {
        mappings: extra.mappings ?? [{ cost: '0.01', name: 'volume-gb' }],
        thresholds: [{ level: '200', type: 'rate', cost: extra.threshold ?? '0.95' }],
      },
    },
  };
}

describe(`scheduled applies on ${testDatabaseKind()}`, () => {
  let t: TestApp;
  let revision: number;
  beforeEach(async () => {
    await t?.close();
    t = await startTestApp();
    revision = (await applied(t, base())).revision;
  });
  afterAll(() => t?.close());

  it('refuses a later effective_at that changes a threshold, naming it and unversioned_now; nothing is written', async () => {
    const before = await exported(t);
    const refused = await apply(t, base({ threshold: '0.9' }), { effective_at: isoFromNow(1) });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.faultstring).toContain('services[volume].thresholds[level=200]');
    expect(refused.body.faultstring).toContain('unversioned_now=true');
    const states = await apply(t, base({ enabled: false }), { effective_at: isoFromNow(1) });
    expect(states.status, states.text).toBe(400);
    expect(states.body.faultstring).toContain('modules[hashmap]');
    expect(await exported(t)).toEqual({ ...before, at: expect.any(String) });
  });

  it('applies the threshold now with unversioned_now=true, the mapping change at effective_at', async () => {
    const effectiveAt = isoFromNow(1);
    const diff = await applied(t, base({ threshold: '0.9', mappings: [{ cost: '0.02', name: 'volume-gb' }] }), {
      effective_at: effectiveAt,
      unversioned_now: true,
    });
    expect(diff.revision).toBe(revision + 1);
    expect(diff.counts).toEqual({ ...NO_CHANGES, replaced: 1, updated: 1 });
    const threshold = diff.changes.find((change: any) => change.resource === 'threshold');
    expect(threshold).toMatchObject({
      action: 'updated',
      path: 'services[volume].thresholds[level=200]',
      before: { level: '200', type: 'rate', cost: '0.95' },
      after: { level: '200', type: 'rate', cost: '0.9' },
    });
    // The threshold changed now: today's export shows it, with the mapping change still scheduled.
    const now = await exported(t);
    expect(now.services.volume).toEqual({
      mappings: [
        { cost: '0.01', name: 'volume-gb', end: effectiveAt },
        { cost: '0.02', name: 'volume-gb', start: effectiveAt },
      ],
      thresholds: [{ level: '200', type: 'rate', cost: '0.9' }],
    });
  });

  it('refuses effective_at in the past', async () => {
    const before = await exported(t);
    const refused = await apply(t, base({ mappings: [{ cost: '5', name: 'volume-gb' }] }), { effective_at: isoFromNow(-1) });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.faultstring).toMatch(/^effective_at is in the past: /);
    expect(await exported(t)).toEqual({ ...before, at: expect.any(String) });
  });

  it('ends a stored rule the document leaves out at effective_at', async () => {
    const effectiveAt = isoFromNow(1);
    const diff = await applied(t, base({ mappings: [] }), { effective_at: effectiveAt });
    expect(diff.counts).toEqual({ ...NO_CHANGES, ended: 1 });
    expect(diff.changes[0]).toMatchObject({
      action: 'ended',
      resource: 'mapping',
      path: 'services[volume].mappings[default]',
      before: { cost: '0.01', name: 'volume-gb', end: null },
      after: { cost: '0.01', name: 'volume-gb', end: effectiveAt },
    });
    expect((await exported(t)).services.volume.mappings).toEqual([{ cost: '0.01', name: 'volume-gb', end: effectiveAt }]);
    expect((await exported(t, isoFromNow(2))).services.volume).toEqual({ thresholds: [{ level: '200', type: 'rate', cost: '0.95' }] });
  });

  it('deletes a scheduled stored rule the document leaves out', async () => {
    const start = isoFromNow(10);
    const scheduled = await applied(
      t,
      base({
        mappings: [
          { cost: '0.01', name: 'volume-gb', end: start },
          { cost: '0.03', name: 'volume-gb', start },
        ],
      }),
    );
    expect(scheduled.counts).toEqual({ ...NO_CHANGES, added: 1, updated: 1 });
    const mappingId = (await t.get(`${H}/mappings?service_id=${(await t.get(`${H}/services`)).body.services[0].service_id}`)).body.mappings.find(
      (mapping: any) => mapping.start.startsWith(start.slice(0, 19)),
    )?.mapping_id;
    expect(mappingId).toEqual(expect.any(String));

    const diff = await applied(t, base(), { effective_at: isoFromNow(1) });
    expect(diff.counts).toEqual({ ...NO_CHANGES, deleted: 1, updated: 1 });
    expect(diff.changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'deleted', resource: 'mapping', before: expect.objectContaining({ mapping_id: mappingId, cost: '0.03', start }) }),
        // The rule in force loses the end the scheduled one gave it.
        expect.objectContaining({ action: 'updated', resource: 'mapping', after: expect.objectContaining({ cost: '0.01', end: null }) }),
      ]),
    );
    expect((await t.get(`${H}/mappings/${mappingId}`)).status).toBe(404);
    expect((await exported(t, isoFromNow(20))).services.volume.mappings).toEqual([{ cost: '0.01', name: 'volume-gb' }]);
  });
});
