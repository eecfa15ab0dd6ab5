// One load run with autocannon, bounded in time. autocannon's own latency histogram has 1 ms
// resolution, so latencies are also recorded here from its `response` events (sub-millisecond,
// 2xx only, as autocannon does), and requests/s is completed responses / wall time of the run.
import autocannon from 'autocannon';

const MAX_SAMPLES = 5_000_000; // bounded memory, far above 10 s × any plausible rate

let current; // the running instance, so that SIGINT can stop it

export function stopCurrentLoad() {
  if (current) current.stop();
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

const round = (value, digits = 2) => (value === null || value === undefined ? null : Number(value.toFixed(digits)));

/**
 * @param {object} options
 * @param {string} options.url           base URL, e.g. http://127.0.0.1:8889
 * @param {number} options.connections
 * @param {number} options.duration      seconds
 * @param {number} options.timeout       seconds before a request counts as a timeout
 * @param {object[]} options.requests    autocannon `requests` (method, path, headers, body, setupRequest)
 */
export async function runLoad({ url, connections, duration, timeout, requests }) {
  const latencies = [];
  let responses = 0;
  const started = performance.now();
  const instance = autocannon({
    url,
    connections,
    duration,
    timeout,
    pipelining: 1,
    requests,
  });
  current = instance;
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    responses += 1;
    if (statusCode >= 200 && statusCode < 300 && latencies.length < MAX_SAMPLES) latencies.push(responseTime);
  });
  let result;
  try {
    result = await instance;
  } finally {
    current = undefined;
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, Number(count)]));
  return {
    connections,
    duration_s: round(seconds, 3),
    requests: responses,
    rps: round(responses / seconds, responses / seconds < 10 ? 3 : 1),
    latency_ms: {
      p50: round(percentile(latencies, 50), 3),
      p90: round(percentile(latencies, 90), 3),
      p99: round(percentile(latencies, 99), 3),
      max: round(latencies.length ? latencies[latencies.length - 1] : null, 3),
      mean: round(latencies.length ? latencies.reduce((sum, value) => sum + value, 0) / latencies.length : null, 3),
    },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    status_codes: statusCodes,
    bytes_per_s: Math.round(result.throughput?.average ?? 0),
  };
}
