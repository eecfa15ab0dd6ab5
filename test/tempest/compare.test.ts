/**
 * The comparison of two tempest runs: which outcomes count as differences, and what the report
 * shows of a failing test (its failing request with both servers' answers).
 */
import { describe, expect, it } from 'vitest';
import { compareRuns, renderReport, shortName, type TempestRun, type TempestStatus, type TempestTest } from './compare.js';

const ID = 'cloudkitty_tempest_plugin.tests.api.v1.test_hashmap_api.CloudkittyHashmapAPITest';

function runOf(region: string, tests: Record<string, TempestTest>): TempestRun {
  const summary = { pass: 0, fail: 0, skip: 0 } as Record<TempestStatus, number>;
  for (const test of Object.values(tests)) summary[test.status] += 1;
  return { region, plugin_dir: '/usr/lib/python3/dist-packages', stestr_exit: 0, seconds: 1, summary, tests };
}

const outcome = (status: TempestStatus): TempestTest => ({ status, reason: status === 'pass' ? null : `${status} reason`, requests: [] });

describe('compareRuns', () => {
  it('counts every outcome that is not the same on both sides, a test missing on one side included', () => {
    const tariff = runOf('RegionOne', {
      [`${ID}.a`]: outcome('pass'),
      [`${ID}.b`]: outcome('fail'),
      [`${ID}.c`]: outcome('skip'),
      [`${ID}.d`]: outcome('skip'),
      [`${ID}.e`]: outcome('fail'),
      [`${ID}.f`]: outcome('pass'),
    });
    const cloudkitty = runOf('CloudKitty17', {
      [`${ID}.a`]: outcome('pass'),
      [`${ID}.b`]: outcome('pass'),
      [`${ID}.c`]: outcome('pass'),
      [`${ID}.d`]: outcome('skip'),
      [`${ID}.e`]: outcome('fail'),
      [`${ID}.g`]: outcome('pass'),
    });
    expect(compareRuns(tariff, cloudkitty)).toEqual([
      { id: `${ID}.b`, tariff: 'fail', cloudkitty: 'pass' },
      { id: `${ID}.c`, tariff: 'skip', cloudkitty: 'pass' },
      { id: `${ID}.f`, tariff: 'pass', cloudkitty: 'missing' },
      { id: `${ID}.g`, tariff: 'missing', cloudkitty: 'pass' },
    ]);
  });

  it('finds nothing when both runs end the same', () => {
    const tests = { [`${ID}.a`]: outcome('pass'), [`${ID}.b`]: outcome('skip') };
    expect(compareRuns(runOf('RegionOne', tests), runOf('CloudKitty17', tests))).toEqual([]);
  });
});

describe('renderReport', () => {
  it("shows the failing request with Tariff's answer and CloudKitty's answer to the same request", () => {
    const id = `${ID}.test_update_hashmap_mapping[id-6a04634d-2d3a-406e-980a-e7c7c9cc081b]`;
    const create = { status: '201', method: 'POST', request_body: '{"value": "dummy field"}', response_body: '{}' };
    const tariff = runOf('RegionOne', {
      [id]: {
        status: 'fail',
        reason: 'tempest.lib.exceptions.BadRequest: Bad request',
        requests: [
          { ...create, url: 'http://127.0.0.1:1/v1/rating/module_config/hashmap/mappings/' },
          {
            status: '400',
            method: 'PUT',
            url: 'http://127.0.0.1:1/v1/rating/module_config/hashmap/mappings/',
            request_body: '{"value": "new value"}',
            response_body: '{"faultcode":"Client"}',
          },
        ],
      },
    });
    const cloudkitty = runOf('CloudKitty17', {
      [id]: {
        status: 'pass',
        reason: null,
        requests: [
          { ...create, url: 'http://127.0.0.1:2/v1/rating/module_config/hashmap/mappings/' },
          {
            status: '302',
            method: 'PUT',
            url: 'http://127.0.0.1:2/v1/rating/module_config/hashmap/mappings/',
            request_body: '{"value": "new value"}',
            response_body: '',
            location: 'http://127.0.0.1:2/v1/rating/module_config/hashmap/mappings/',
          },
        ],
      },
    });
    const report = renderReport(tariff, cloudkitty, compareRuns(tariff, cloudkitty));
    expect(shortName(id)).toBe('CloudkittyHashmapAPITest.test_update_hashmap_mapping');
    expect(report).toContain('- differences: 1');
    expect(report).toContain('| CloudkittyHashmapAPITest.test_update_hashmap_mapping | fail | pass |');
    expect(report).toContain('tempest.lib.exceptions.BadRequest: Bad request');
    expect(report).toContain('Request (#2 of the test): `PUT /v1/rating/module_config/hashmap/mappings/`');
    expect(report).toContain('- Tariff: 400 `{"faultcode":"Client"}`');
    expect(report).toContain('- CloudKitty 17: 302 Location: `/v1/rating/module_config/hashmap/mappings/` ``');
  });
});
