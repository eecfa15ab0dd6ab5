/** What every test request sends. */

/**
 * Headers of every test request: JSON, as the CloudKitty client sends, and datetimes with explicit
 * offsets (`X-Tariff-Datetimes: offset`, api.md §1), so the suites read instants as they did; the
 * tests of CloudKitty's naive form (test/http/cloudkitty-datetimes.test.ts) send none.
 */
export const TEST_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json', 'x-tariff-datetimes': 'offset' };
