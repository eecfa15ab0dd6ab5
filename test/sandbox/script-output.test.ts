/**
 * Issue 11, item 1, for the decimals scripts return: a price or quantity a script leaves must be
 * in the quote decimal range (TARIFF_DECIMAL_MAX_EXPONENT); outside it the quote is a 422 naming
 * the scripts and the attribute, answered at once, never a huge body or a stall.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { P, startTestApp, type TestApp } from '../helpers/app.js';
import { ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';

let t: TestApp;
let sandbox: ScriptSandbox;
let counter = 0;

/** Makes `source` the only live script and quotes one compute point with it. */
async function quoteWith(source: string): Promise<{ status: number; body: any; text: string; name: string }> {
  for (const script of (await t.get(`${P}/scripts`)).body.scripts) await t.del(`${P}/scripts/${script.script_id}`);
  counter += 1;
  const name = `output-${counter}`;
  const created = await t.post(`${P}/scripts?force=true`, { name, data: source, start: '2020-01-01' });
  expect(created.status, created.text).toBe(201);
  const quoted = await t.post('/v2/rating/quote', { usage: { compute: [{ vol: { unit: 'instance', qty: '1' }, groupby: {}, metadata: {} }] } });
  return { ...quoted, name };
}

beforeAll(async () => {
  sandbox = new ScriptSandbox({ poolSize: 1, timeoutMs: 10_000, memoryLimitMb: 256 });
  await sandbox.start();
  t = await startTestApp({ sandbox, config: { maxDecimalExponent: 100 } });
  expect((await t.put('/v2/rating/modules/pyscripts', { enabled: true })).status).toBe(204);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
});

describe('decimals a script leaves', () => {
  it('takes prices and quantities in range and refuses the others with a 422 naming the scripts', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -400_000, max: 400_000 }), fc.constantFrom('price', 'qty'), async (exponent, attribute) => {
        const target = attribute === 'price' ? "point['rating']['price']" : "point['vol']['qty']";
        const answer = await quoteWith(`from decimal import Decimal\nfor point in data['usage']['compute']:\n    ${target} = Decimal('7e${exponent}')\n`);
        if (exponent < 100 && exponent >= -100) {
          expect(answer.status, answer.text).toBe(200);
          expect(answer.text.length).toBeLessThan(2000);
        } else {
          const where = attribute === 'price' ? 'rating.price' : 'vol.qty';
          expect(answer.status, answer.text).toBe(422);
          expect(answer.body.faultstring).toBe(
            `The PyScripts scripts (${answer.name}) left an invalid dataframe: usage.compute[0].${where} '7E${exponent > 0 ? '+' : ''}${exponent}'. ` +
              'Value must be 0 or between 1e-100 and 1e100 in magnitude (TARIFF_DECIMAL_MAX_EXPONENT).',
          );
        }
      }),
      {
        seed: 1124,
        numRuns: 12,
        examples: [
          [300_000, 'price'],
          [-300_000, 'qty'],
          [99, 'price'],
          [100, 'price'],
        ],
      },
    );
  });
});
