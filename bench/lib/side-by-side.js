// Two servers measured side by side: the same load on each in alternating rounds (A B, then B A,
// ...), so both see the same machine noise, and the cost of B over A as the median of the
// per-round ratios (each round's two runs are adjacent in time, which is steadier than the ratio
// of medians on a machine whose speed drifts).
import { runLoad } from './load.js';
import { cpuTicksOfTree } from './processes.js';

export function median(numbers) {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Runs `requests()` on every target for `rounds` rounds of `duration` seconds, alternating the
 * order each round, after an unmeasured warm-up of `warmup` seconds on each.
 *
 * @param {object} options
 * @param {{name: string, url: string, pid: number}[]} options.targets  targets[0] is the baseline
 * @param {(target: object) => object[]} options.requests   autocannon `requests` for a target, built anew for every run
 * @param {(status: string) => boolean} options.ok  which status codes are not a failure
 * @param {(line: string) => void} [options.log]
 * @returns {Promise<{runs: {rps: number[], p50: number[], cpu: number[]}[], rpsCost: number, cpuCost: number}>}
 *   per target the rounds' req/s, p50 ms and server CPU µs per request; the costs of targets[1]
 *   over targets[0] as fractions (0.05 = 5 % fewer req/s, 5 % more CPU per request)
 * @throws Error when a run answers a status `ok` refuses, or answers nothing
 */
export async function alternatingRounds({ targets, requests, ok, connections, duration, rounds, warmup, log = () => {} }) {
  const timeout = Math.max(30, 2 * duration);
  if (warmup > 0) for (const target of targets) await runLoad({ url: target.url, connections, duration: warmup, timeout, requests: requests(target) });
  const runs = targets.map(() => ({ rps: [], p50: [], cpu: [] }));
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? targets.map((_, index) => index) : targets.map((_, index) => targets.length - 1 - index);
    for (const index of order) {
      const target = targets[index];
      const ticksBefore = cpuTicksOfTree(target.pid);
      const result = await runLoad({ url: target.url, connections, duration, timeout, requests: requests(target) });
      const refused = Object.keys(result.status_codes).filter((status) => !ok(status));
      if (refused.length > 0 || result.requests === 0)
        throw new Error(`${target.name}: answers ${JSON.stringify(result.status_codes)}, errors ${result.errors}`);
      // Clock ticks are 10 ms: CPU microseconds per request.
      runs[index].cpu.push(((cpuTicksOfTree(target.pid) - ticksBefore) * 10_000) / result.requests);
      runs[index].rps.push(result.rps);
      runs[index].p50.push(result.latency_ms.p50);
      log(`round ${round + 1}, ${target.name}: ${result.rps} req/s, p50 ${result.latency_ms.p50} ms, ${runs[index].cpu.at(-1).toFixed(1)} µs CPU/request`);
    }
  }
  return {
    runs,
    rpsCost: median(runs[1].rps.map((rps, round) => 1 - rps / runs[0].rps[round])),
    cpuCost: median(runs[1].cpu.map((cpu, round) => cpu / runs[0].cpu[round] - 1)),
  };
}

/** `0.031` → `+3.1 %`. */
export const percent = (fraction) => `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)} %`;

/** Scrapes `url`'s /metrics every `seconds` until the returned function is called: a Prometheus server's load. */
export function scrapeMetrics(url, seconds) {
  const timer = setInterval(() => {
    fetch(`${url}/metrics`).then(
      (response) => response.text(),
      () => undefined,
    );
  }, seconds * 1000);
  return () => clearInterval(timer);
}
