/**
 * The HTTP series of `GET /metrics` (`tariff_http_requests_total`, `tariff_http_request_duration_seconds`),
 * kept in plain numbers on the hot path: one answer costs three map lookups, a bucket search and
 * a few additions, with no allocation and no label hashing once its route, method and status were
 * seen (prom-client's own `inc`/`observe` hash the labels and allocate on every call). prom-client
 * formats them at each scrape, from the values {@link RequestSeries.counter} and
 * {@link RequestSeries.histogram} hand its registry, in the shape its own counters and histograms
 * give.
 */

/** What prom-client's registry reads of a metric (its `get()` answer). */
export interface CollectedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: { labels: Record<string, string | number>; value: number; metricName?: string }[];
}

/** A metric prom-client's registry can format: a name and a `get()`. */
export interface CollectableMetric {
  name: string;
  help: string;
  get(): Promise<CollectedMetric>;
}

interface Tally {
  labels: { route: string; method: string; status: string };
  value: number;
}

interface Distribution {
  labels: { route: string; method: string };
  /** Observations per bucket, not cumulative: `perBucket[i]` counts those in (bounds[i-1], bounds[i]]. */
  perBucket: Float64Array;
  sum: number;
  count: number;
}

interface MethodSeries {
  distribution: Distribution;
  byStatus: Map<number, Tally>;
}

/** Answers counted by route template, method and status, and their durations by route and method. */
export class RequestSeries {
  private readonly byRoute = new Map<string, Map<string, MethodSeries>>();

  /** @param bounds - the histogram's upper bounds in seconds, ascending (`+Inf` is implied). */
  constructor(private readonly bounds: readonly number[]) {}

  /** Counts one answer of `route`, `method` and `status` that took `seconds`. */
  record(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map<string, MethodSeries>()));
    let series = byMethod.get(method);
    if (!series) {
      series = { distribution: { labels: { route, method }, perBucket: new Float64Array(this.bounds.length), sum: 0, count: 0 }, byStatus: new Map() };
      byMethod.set(method, series);
    }
    let tally = series.byStatus.get(status);
    if (!tally) series.byStatus.set(status, (tally = { labels: { route, method, status: String(status) }, value: 0 }));
    tally.value += 1;
    const distribution = series.distribution;
    distribution.count += 1;
    distribution.sum += seconds;
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && seconds > bounds[bucket]) bucket += 1;
    if (bucket < bounds.length) distribution.perBucket[bucket] += 1;
  }

  /** The requests counter, by route, method and status. */
  counter(name: string, help: string): CollectableMetric {
    return {
      name,
      help,
      get: async () => {
        const values: CollectedMetric['values'] = [];
        for (const series of this.allSeries()) for (const tally of series.byStatus.values()) values.push({ labels: tally.labels, value: tally.value });
        return { name, help, type: 'counter', aggregator: 'sum', values };
      },
    };
  }

  /** The durations histogram, by route and method: cumulative buckets, `+Inf`, sum and count. */
  histogram(name: string, help: string): CollectableMetric {
    return {
      name,
      help,
      get: async () => {
        const values: CollectedMetric['values'] = [];
        for (const { distribution } of this.allSeries()) {
          let cumulative = 0;
          for (const [index, bound] of this.bounds.entries()) {
            cumulative += distribution.perBucket[index];
            values.push({ labels: { ...distribution.labels, le: bound }, value: cumulative, metricName: `${name}_bucket` });
          }
          values.push({ labels: { ...distribution.labels, le: '+Inf' }, value: distribution.count, metricName: `${name}_bucket` });
          values.push({ labels: distribution.labels, value: distribution.sum, metricName: `${name}_sum` });
          values.push({ labels: distribution.labels, value: distribution.count, metricName: `${name}_count` });
        }
        return { name, help, type: 'histogram', aggregator: 'sum', values };
      },
    };
  }

  private *allSeries(): Generator<MethodSeries> {
    for (const byMethod of this.byRoute.values()) yield* byMethod.values();
  }
}
