/**
 * Stored usage read from CloudKitty's v2 API (`GET /v2/dataframes`), for a simulation of a draft
 * price list (docs/price-list.md §4): the period is read one window at a time, each window page
 * by page, so that memory follows a window, never the period.
 *
 * CloudKitty compat: `GET /v2/dataframes?begin&end&offset&limit` answers `{"total": n,
 * "dataframes": [...]}`, or 404 `{"message": "No resource found for provided filters."}` when the
 * window holds nothing. Its v2 storages (InfluxDB and Elasticsearch in CloudKitty 17; OpenSearch
 * and Loki in later releases) count `total`, `offset` and `limit` in points, and a page may end
 * inside a period: the pieces are put together per window. On its v1 SQL storage CloudKitty (17 at least) serves no `/v2`
 * route at all: every `/v2` path is Flask's 404 `text/html` page, which is a fault here, not an
 * empty window (read as one, it made a simulation of nothing, "no change"). Reading pages until the
 * points read reach `total` would also end a storage that counted `total` in dataframes. A non-admin caller is answered
 * only its own project's points, so the requests carry Tariff's service token (Keystone mode: its
 * user needs the admin role) or `X-Roles: admin` (noauth, which CloudKitty's noauth reads).
 */
import { formatApiDateTime } from '../common/datetime.js';
import { BadRequestError, TariffError } from '../../kernel/errors.js';
import { JsonNumberText } from '../../kernel/json-number.js';
import { numberAsText, readStoredDataframe, type StoredDataframe } from './stored-dataframe.js';

/** Where and how CloudKitty's stored usage is read. */
export interface CloudKittyUsageSource {
  /** CloudKitty's API, without a trailing slash (`TARIFF_CLOUDKITTY_API_URL`). */
  url: string;
  /** Milliseconds of usage asked for at once (`TARIFF_SIMULATION_WINDOW`, seconds). */
  windowMs: number;
  /** Points asked for per page (`TARIFF_SIMULATION_PAGE_POINTS`). */
  pagePoints: number;
  /** Milliseconds one page may take, connection to last byte (`TARIFF_CLOUDKITTY_TIMEOUT`). */
  timeoutMs: number;
  /**
   * Tariff's service token in Keystone mode; undefined in noauth. Given the token CloudKitty
   * refused (401), a new one.
   */
  serviceToken?: (stale?: string) => Promise<string>;
  /** Quantities and prices must be 0 or within [10^-n, 10^n) (`TARIFF_DECIMAL_MAX_EXPONENT`). */
  maxDecimalExponent: number;
}

/** How far a read has come: windows done of all, for progress. */
export interface WindowProgress {
  windows: number;
  windowsDone: number;
}

/** CloudKitty's fault, or the lack of an answer: 502 (504 when it took too long), naming CloudKitty. */
function cloudKittyFault(what: string, status = 502): TariffError {
  return new TariffError(status, `Reading stored usage from CloudKitty failed: ${what}`);
}

/** The answer's fault text, CloudKitty's `message` / `faultstring` / `description` when it gives one. */
function faultText(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const message = body.message ?? body.faultstring ?? body.description;
    if (typeof message === 'string') return message.slice(0, 500);
  } catch {
    // not JSON: its start is the message
  }
  return text.slice(0, 200);
}

/** Whether a 404's text is CloudKitty's own fault (`{"message": "…"}`), not a page for an unknown route. */
function isCloudKittyNotFound(text: string): boolean {
  try {
    const body = JSON.parse(text) as unknown;
    return typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string';
  } catch {
    return false;
  }
}

/**
 * The stored dataframes whose begin is in [`begin`, `end`), window by window in time order.
 *
 * @param progress - updated as windows are done.
 * @throws TariffError 502 when CloudKitty cannot be reached or answers a fault (its status and
 *   message), 504 when a page takes longer than `timeoutMs`; BadRequestError (400) for a stored
 *   point that is not a valid dataframe point. A throw ends the read: nothing after it is given.
 */
export async function* readCloudKittyUsage(
  source: CloudKittyUsageSource,
  begin: Date,
  end: Date,
  signal: AbortSignal,
  progress: WindowProgress,
): AsyncGenerator<StoredDataframe> {
  const first = begin.getTime();
  const last = end.getTime();
  progress.windows = Math.max(0, Math.ceil((last - first) / source.windowMs));
  progress.windowsDone = 0;
  for (let windowBegin = first; windowBegin < last; windowBegin += source.windowMs) {
    const windowEnd = Math.min(last, windowBegin + source.windowMs);
    // CloudKitty pages by points: a period cut by a page comes back as two dataframes. The
    // window's pieces of each period are put together before any is given (a script sees a
    // tenant's whole period, as CloudKitty's processor gave it): memory follows the window.
    const periods = new Map<string, StoredDataframe>();
    let offset = 0;
    for (;;) {
      const page = await readPage(source, new Date(windowBegin), new Date(windowEnd), offset, signal);
      let points = 0;
      for (const dataframe of page.dataframes) {
        for (const list of dataframe.usage.values()) points += list.length;
        const time = dataframe.begin.getTime();
        if (time >= windowBegin && time < windowEnd) addPiece(periods, dataframe);
      }
      offset += points;
      if (points === 0 || offset >= page.total) break;
    }
    // Read: counted before its dataframes are priced, so that progress never lags a slow window.
    progress.windowsDone += 1;
    yield* [...periods.values()].sort((a, b) => a.begin.getTime() - b.begin.getTime());
  }
}

/** Adds a piece of a period's dataframe to the one already read for the same period, or keeps it. */
function addPiece(periods: Map<string, StoredDataframe>, piece: StoredDataframe): void {
  const key = `${piece.begin.getTime()}/${piece.end.getTime()}`;
  const whole = periods.get(key);
  if (whole === undefined) {
    periods.set(key, piece);
    return;
  }
  for (const [service, points] of piece.usage) {
    const list = whole.usage.get(service);
    if (list) for (const point of points) list.push(point);
    else whole.usage.set(service, points);
  }
}

/** One GET's status and text, within `timeoutMs`. */
async function fetchText(url: string, headers: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { headers, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
  return { status: response.status, text: await response.text() };
}

/** One page of one window. */
async function readPage(
  source: CloudKittyUsageSource,
  begin: Date,
  end: Date,
  offset: number,
  signal: AbortSignal,
): Promise<{ total: number; dataframes: StoredDataframe[] }> {
  const query = new URLSearchParams({ begin: formatApiDateTime(begin), end: formatApiDateTime(end), offset: String(offset), limit: String(source.pagePoints) });
  const path = `/v2/dataframes?${query.toString()}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (source.serviceToken) headers['x-auth-token'] = await source.serviceToken();
  else headers['x-roles'] = 'admin';
  let status: number;
  let text: string;
  try {
    ({ status, text } = await fetchText(`${source.url}${path}`, headers, source.timeoutMs, signal));
    // Tariff's token revoked or expired before its renewal time: a new one, once (as a token
    // validation does).
    if (status === 401 && source.serviceToken) {
      headers['x-auth-token'] = await source.serviceToken(headers['x-auth-token']);
      ({ status, text } = await fetchText(`${source.url}${path}`, headers, source.timeoutMs, signal));
    }
  } catch (error) {
    if (error instanceof TariffError) throw error;
    if (signal.aborted) throw signal.reason;
    const timedOut = (error as Error).name === 'TimeoutError';
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw cloudKittyFault(
      timedOut
        ? `GET ${path} took longer than ${source.timeoutMs / 1000} s (TARIFF_CLOUDKITTY_TIMEOUT).`
        : `${source.url} is unreachable: ${cause ?? (error as Error).message}.`,
      timedOut ? 504 : 502,
    );
  }
  // CloudKitty compat: a window without points is a 404 {"message": "No resource found for
  // provided filters."}; a 404 without CloudKitty's JSON message is a route it does not serve.
  if (status === 404) {
    if (isCloudKittyNotFound(text)) return { total: 0, dataframes: [] };
    throw cloudKittyFault(
      `GET ${path} answered 404 without CloudKitty's JSON fault: it serves no v2 API there (CloudKitty drops its whole /v2 API on its v1 storage, [storage] version = 1; use a v2 storage, or send a usage file).`,
    );
  }
  if (status !== 200) throw cloudKittyFault(`GET ${path} answered ${status}: ${faultText(text)}`);
  let body: unknown;
  try {
    body = JSON.parse(text, numberAsText);
  } catch (error) {
    throw cloudKittyFault(`GET ${path} answered text that is not JSON (${(error as Error).message}).`);
  }
  const { total, dataframes } = (body ?? {}) as { total?: unknown; dataframes?: unknown };
  // Numbers come back as their text (`numberAsText`).
  const count = total instanceof JsonNumberText ? total.value : Number.NaN;
  if (!Array.isArray(dataframes) || !Number.isFinite(count)) throw cloudKittyFault(`GET ${path} answered without "total" and "dataframes".`);
  try {
    const where = (index: number) => `GET ${path}: dataframe ${index}`;
    return { total: count, dataframes: dataframes.map((value: unknown, index) => readStoredDataframe(value, where(index), source.maxDecimalExponent)) };
  } catch (error) {
    // What CloudKitty stored is not the caller's fault.
    throw error instanceof BadRequestError ? cloudKittyFault(error.message) : error;
  }
}
