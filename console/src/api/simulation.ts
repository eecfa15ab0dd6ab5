/**
 * A draft price list simulated on stored usage (`POST /v2/rating/price_list/simulation`,
 * docs/price-list.md §4): the usage read by the server from CloudKitty, or a usage file uploaded
 * with the draft. The answer is asked as NDJSON, read as it streams: progress lines, then one
 * `result` or `error` line; only a `result` line makes a result.
 *
 * The query is the generated shape (schema.d.ts); the result is not described by the OpenAPI
 * document (the route answers JSON, CSV or NDJSON, declared as text), so its members are written
 * here by hand from the contract. Every money amount in it is exact decimal text: keep it text.
 */
import { ApiError, send } from './client.js';
import { MEDIA_TYPES, type DocumentFormat } from './price-list.js';
import type { paths } from './schema.js';

/** The endpoint. */
const SIMULATION = '/v2/rating/price_list/simulation';
/** The streamed answer's media type. */
const NDJSON = 'application/x-ndjson';

/** The query the route reads, as the OpenAPI document declares it. */
export type SimulationQuery = paths['/v2/rating/price_list/simulation']['post']['parameters']['query'];

/** Totals of some points: counts, and money as exact decimal text. */
export interface SimulationTotals {
  points: number;
  /** Points whose draft price differs from their current price. */
  changed_points: number;
  /** What CloudKitty stored for them. */
  stored: string;
  /** Priced again with the rules as stored now. */
  current: string;
  /** Priced with the draft's rules from the effective time on. */
  draft: string;
  /** `draft − current`. */
  delta: string;
  /** `delta / current` to 28 significant digits (decimal text, maybe with an exponent); null when current is 0. */
  relative_delta: string | null;
}

/** A project's totals; `project_id` null for points without one. */
export interface ProjectImpact extends SimulationTotals {
  project_id: string | null;
}

/** A service's totals. */
export interface ServiceImpact extends SimulationTotals {
  service: string;
}

/** Stored prices against the current rules' prices, for points where they differ. */
export interface Reconciled {
  points: number;
  stored: string;
  current: string;
  /** `stored − current`. */
  difference: string;
}

/** A collection period's reconciliation. */
export interface ReconciledWindow extends Reconciled {
  begin: string;
  end: string;
}

/** A project's reconciliation, by collection period. */
export interface ReconciledProject extends Reconciled {
  project_id: string | null;
  windows: ReconciledWindow[];
}

/** A stored point whose stored price is not the current rules' price. */
export interface ReconciliationFinding {
  project_id: string | null;
  service: string;
  begin: string;
  end: string;
  qty: string;
  unit?: string;
  stored: string;
  current: string;
  groupby: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** A rule whose contribution differs between the two sides on some points. */
export interface ChangingRule {
  module: string;
  /** hashmap: `service/field/value`, `service/field ≥ level` or `service`; pyscripts: the script's name. */
  name: string;
  points: number;
}

/** The simulation's result (docs/price-list.md §4). */
export interface SimulationResult {
  begin: string;
  end: string;
  effective_at: string;
  /** The configuration revision the current side was read at. */
  revision: number;
  usage: 'cloudkitty' | 'file';
  totals: SimulationTotals & { distinct_points: number };
  /** By |delta|, larger first, then by project. */
  projects: ProjectImpact[];
  services: ServiceImpact[];
  movers: { projects: ProjectImpact[]; services: ServiceImpact[] };
  /** The rules that change prices, most points first. */
  rules: ChangingRule[];
  /**
   * The projects' `windows` list the first TARIFF_SIMULATION_MAX_FINDINGS windows in all, and
   * `findings` as many points: `windows_omitted` and `findings_omitted` count the rest.
   */
  reconciliation: Reconciled & { projects: ReconciledProject[]; findings: ReconciliationFinding[]; findings_omitted: number; windows_omitted: number };
}

/** A progress line's members. */
export interface SimulationProgress {
  /** Points read so far. */
  points: number;
  /** CloudKitty windows to read (0 for a usage file). */
  windows: number;
  windows_done: number;
  elapsed_ms: number;
}

/** Where the usage comes from. */
export type UsageSource = { kind: 'cloudkitty' } | { kind: 'file'; file: Blob; name: string };

/** What a simulation is asked for. */
export interface SimulationRequest {
  /** The draft as reviewed: its text and format. */
  draft: { text: string; format: DocumentFormat };
  /** ISO instants: the usage read, by dataframe begin, over [begin, end). */
  begin: string;
  end: string;
  /** When the draft takes over, ISO; undefined: begin. */
  effectiveAt: string | undefined;
  usage: UsageSource;
}

/**
 * A simulation that ended with an `error` line: the server's fault, with the HTTP status it would
 * have answered.
 */
export class SimulationError extends ApiError {}

/** The answer ended without its last line (the connection closed, a proxy cut it). */
export class IncompleteAnswerError extends Error {
  constructor() {
    super('The answer ended before the simulation’s result: no result is shown. Run it again.');
  }
}

/** One line of the streamed answer, as read. */
type AnswerLine =
  { progress: SimulationProgress } | { result: SimulationResult } | { error: { faultstring?: string; message?: string; status?: number; faultcode?: string } };

/**
 * Reads the NDJSON answer: `onProgress` for each progress line, the result from its line.
 *
 * @throws SimulationError for an `error` line; IncompleteAnswerError when the stream ends before
 *   either; the stream's own error (an abort) as it is.
 */
export async function readSimulationAnswer(body: ReadableStream<Uint8Array>, onProgress: (progress: SimulationProgress) => void): Promise<SimulationResult> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  const readLine = (text: string): SimulationResult | undefined => {
    if (text.trim() === '') return undefined;
    const line = JSON.parse(text) as AnswerLine;
    if ('progress' in line) onProgress(line.progress);
    else if ('result' in line) return line.result;
    else if ('error' in line) {
      const status = line.error.status ?? 500;
      throw new SimulationError(status, line.error.faultstring ?? line.error.message ?? `The simulation failed (${status}).`, line.error);
    }
    return undefined;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const result = readLine(pending.slice(0, newline));
        if (result !== undefined) return result;
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    }
    // A last line without its newline is whole only if it reads as JSON: else the answer was cut.
    let result: SimulationResult | undefined;
    try {
      result = readLine(pending + decoder.decode());
    } catch (error) {
      throw error instanceof SyntaxError ? new IncompleteAnswerError() : error;
    }
    if (result !== undefined) return result;
    throw new IncompleteAnswerError();
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}

/**
 * Runs a simulation: the draft alone (usage from CloudKitty) or a multipart body with the draft
 * as part `price_list` (its own type) and then the file as part `usage`.
 *
 * @throws ApiError for a refusal before the simulation starts (400 for a draft with problems, bad
 *   times, or no CloudKitty configured, naming `TARIFF_CLOUDKITTY_API_URL`; 403; 503 when another
 *   simulation runs); SimulationError for a fault while it ran; IncompleteAnswerError; an
 *   AbortError when `signal` aborts.
 */
export async function simulate(
  request: SimulationRequest,
  onProgress: (progress: SimulationProgress) => void,
  signal?: AbortSignal,
): Promise<SimulationResult> {
  const query: SimulationQuery = { begin: request.begin, end: request.end };
  if (request.effectiveAt !== undefined) query.effective_at = request.effectiveAt;
  const path = `${SIMULATION}?${new URLSearchParams(query).toString()}`;
  const type = MEDIA_TYPES[request.draft.format];
  let response: Response;
  if (request.usage.kind === 'cloudkitty') {
    response = await send('POST', path, request.draft.text, { accept: NDJSON, 'content-type': type }, signal);
  } else {
    const form = new FormData();
    form.append('price_list', new Blob([request.draft.text], { type }), `price-list.${request.draft.format}`);
    form.append('usage', request.usage.file, request.usage.name);
    response = await send('POST', path, form, { accept: NDJSON }, signal);
  }
  if (response.body === null) throw new IncompleteAnswerError();
  return readSimulationAnswer(response.body, onProgress);
}
