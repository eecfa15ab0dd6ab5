/**
 * A `/healthcheck` prober in a process of its own, so that the test's own event loop (building or
 * sending a large body) cannot delay it: asks every `intervalMs`, each ask bounded by 10 s.
 */
import { spawn } from 'node:child_process';

/** A running prober: `stop` ends it and gives every latency in ms (10,000 for a failed or timed-out ask). */
export interface HealthProbe {
  stop(): Promise<number[]>;
}

/** Starts probing `${url}/healthcheck` every `intervalMs` (default 50 ms). */
export function startHealthProbe(url: string, intervalMs = 50): HealthProbe {
  const script = `
    const latencies = [];
    let running = true;
    process.on('message', () => { running = false; });
    // A test that failed before stop() leaves no prober behind: it ends with its parent, or after 10 minutes.
    process.on('disconnect', () => process.exit(0));
    setTimeout(() => process.exit(0), 600000).unref();
    (async () => {
      while (running) {
        const started = performance.now();
        try {
          const response = await fetch(${JSON.stringify(`${url}/healthcheck`)}, { signal: AbortSignal.timeout(10000) });
          await response.arrayBuffer();
          latencies.push(response.ok ? performance.now() - started : 10000);
        } catch { latencies.push(10000); }
        await new Promise((resolve) => setTimeout(resolve, ${intervalMs}));
      }
      process.send(latencies, () => process.exit(0));
    })();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const result = new Promise<number[]>((resolve) => child.once('message', (latencies) => resolve(latencies as number[])));
  return {
    stop: () => {
      child.send('stop');
      return result;
    },
  };
}
