/**
 * Prices the same generated dataframe with Tariff's v2 quote and with CloudKitty master's HashMap
 * processor, for each tenant and rating time, and lists every point whose prices differ.
 */
import { Decimal } from 'decimal.js';
import { masterPricesForRuns } from './master.js';
import { answerPositions, usageText, type GeneratedPoint } from './points.js';

/** A point priced differently, with both prices and what it carried. */
export interface Disagreement {
  tenant: string | null;
  at: string;
  service: string;
  groupby: string;
  metadata: string;
  qty: string;
  tariff: string;
  cloudkitty: string;
}

/** One rating run: who, when, and (for master) the zone-aware time its orchestrator would pass. */
export interface RatingRun {
  tenant: string | null;
  /** The rating time sent to Tariff (UTC). */
  at: string;
  /** The rating time handed to master's processor (default: `at`). */
  masterAt?: string;
}

/** Tariff's v2 quote of `usage` (JSON text), raw, so numbers keep their source form. */
async function tariffQuote(url: string, usage: string, run: RatingRun): Promise<{ usage: Record<string, { rating: { price: string } }[]> }> {
  const body = `{"usage": ${usage}, "tenant_id": ${JSON.stringify(run.tenant)}, "at": ${JSON.stringify(run.at)}}`;
  const response = await fetch(`${url}/v2/rating/quote`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`Tariff's quote → ${response.status} ${text}`);
  return JSON.parse(text) as { usage: Record<string, { rating: { price: string } }[]> };
}

/**
 * Prices `points` for every run with both and returns the points they disagree on, and how many
 * prices were compared. Master prices every run in one Python process, while Tariff quotes them.
 *
 * @throws Error when master raises while pricing (the frame must hold no value it refuses).
 */
export async function compareWithMaster(
  tariffUrl: string,
  databaseUrl: string,
  points: readonly GeneratedPoint[],
  runs: readonly RatingRun[],
  environment: Record<string, string> = {},
): Promise<{ compared: number; disagreements: Disagreement[] }> {
  const usage = usageText(points);
  const positions = answerPositions(points);
  const quoteEveryRun = async () => {
    const quotes: Awaited<ReturnType<typeof tariffQuote>>[] = [];
    for (const run of runs) quotes.push(await tariffQuote(tariffUrl, usage, run));
    return quotes;
  };
  const [tariffQuotes, masterAnswers] = await Promise.all([
    quoteEveryRun(),
    masterPricesForRuns(
      databaseUrl,
      `{"usage": ${usage}}`,
      runs.map((run) => ({ tenant: run.tenant, at: run.masterAt ?? run.at })),
      environment,
    ),
  ]);
  const disagreements: Disagreement[] = [];
  let compared = 0;
  runs.forEach((run, runIndex) => {
    const tariff = tariffQuotes[runIndex];
    const master = masterAnswers[runIndex];
    if ('error' in master) throw new Error(`CloudKitty master raised for tenant ${run.tenant} at ${run.at}: ${master.error}`);
    positions.forEach(([service, index], pointIndex) => {
      const tariffPrice = tariff.usage[service][index].rating.price;
      const masterPrice = master.usage[service][index].rating.price;
      compared += 1;
      if (!new Decimal(tariffPrice).eq(new Decimal(masterPrice))) {
        const generated = points[pointIndex];
        disagreements.push({
          tenant: run.tenant,
          at: run.at,
          service,
          groupby: JSON.stringify(generated.groupby),
          metadata: JSON.stringify(generated.metadata),
          qty: generated.qty,
          tariff: tariffPrice,
          cloudkitty: masterPrice,
        });
      }
    });
  });
  return { compared, disagreements };
}
