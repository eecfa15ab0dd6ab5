// A tiny JSON client over Node's fetch, with bounded retries and a per-request timeout.

export const H = '/v1/rating/module_config/hashmap';
export const P = '/v1/rating/module_config/pyscripts';

export class HttpError extends Error {
  constructor(method, path, status, text) {
    super(`${method} ${path} -> ${status} ${text.slice(0, 300)}`);
    this.status = status;
  }
}

export class Client {
  /** @param {string} baseUrl e.g. http://127.0.0.1:8889 */
  constructor(baseUrl, { timeoutMs = 120_000 } = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.timeoutMs = timeoutMs;
  }

  /**
   * One call; retried at most 4 times (with a short back-off) on 5xx answers and connection
   * errors, like seed.py (SQLite "database is locked" on CloudKitty). Returns {status, body}.
   */
  async call(method, path, body, { ok = [200, 201, 204], attempts = 5 } = {}) {
    let lastError;
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      try {
        const response = await fetch(this.baseUrl + path, {
          method,
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        const text = await response.text();
        if (ok.includes(response.status)) {
          return { status: response.status, body: text ? JSON.parse(text) : null, bytes: Buffer.byteLength(text) };
        }
        lastError = new HttpError(method, path, response.status, text);
        if (response.status < 500) throw lastError;
      } catch (error) {
        if (error instanceof HttpError && error.status < 500) throw error;
        lastError = error;
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
    }
    throw lastError;
  }

  get(path, options) {
    return this.call('GET', path, undefined, options);
  }

  post(path, body) {
    return this.call('POST', path, body, { ok: [201] });
  }
}

/**
 * Runs `fn(item, index)` over `items` with at most `concurrency` calls in flight; resolves with
 * the results in order. Stops handing out work after the first failure and rethrows it.
 */
export async function pmap(items, concurrency, fn, onProgress) {
  const results = new Array(items.length);
  let next = 0;
  let failed;
  let done = 0;
  const worker = async () => {
    while (failed === undefined && next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await fn(items[index], index);
      } catch (error) {
        failed ??= error;
      }
      done += 1;
      if (onProgress) onProgress(done, items.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (failed !== undefined) throw failed;
  return results;
}
