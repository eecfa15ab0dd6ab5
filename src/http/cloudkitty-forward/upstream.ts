/**
 * The connections to CloudKitty's API: one undici pool, handed to `@fastify/reply-from` as its
 * dispatcher (its `undici` option takes any object with undici's `request`). Going through it
 * adds what reply-from leaves out: the path prefix of `TARIFF_CLOUDKITTY_API_URL`, a request body
 * streamed for every method (reply-from refuses a GET's, which WSME reads: tempest's
 * `GET /v1/collector/states/` `{"name": …}`), and one deadline from forwarding to the answer's
 * headers that also covers the wait for a free connection.
 */
import type { Readable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import type { CloudKittyApiSettings } from '../../config.js';

/** The request reply-from hands its dispatcher (undici's callback form). */
type RequestCallback = (error: Error | null, data?: Dispatcher.ResponseData) => void;

/** What reply-from calls: undici's `request` with a callback. */
export interface ReplyFromDispatcher {
  request: Dispatcher['request'];
}

/**
 * No answer headers within `TARIFF_CLOUDKITTY_TIMEOUT`. Its code is undici's own for a headers
 * timeout, so that reply-from and {@link forwardFailure} see one kind of timeout.
 */
export class AnswerTimeoutError extends Error {
  readonly code = 'UND_ERR_HEADERS_TIMEOUT';

  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs / 1000} s`);
  }
}

/** CloudKitty's API as one undici pool. */
export class CloudKittyUpstream {
  /** `http://host:port`: reply-from's `base`. */
  readonly origin: string;
  /** The dispatcher for reply-from's `undici` option. */
  readonly dispatcher: ReplyFromDispatcher;
  private readonly pathPrefix: string;
  private readonly timeoutMs: number;
  private readonly pool: Pool;
  /** The body of the request being handed to reply-from right now (see {@link send}). */
  private pendingBody: Readable | undefined;

  /** @param settings - with `url` set. */
  constructor(settings: CloudKittyApiSettings & { url: string }) {
    const url = new URL(settings.url);
    this.origin = url.origin;
    this.pathPrefix = url.pathname === '/' ? '' : url.pathname;
    this.timeoutMs = settings.timeoutMs;
    this.pool = new Pool(this.origin, {
      connections: settings.connections,
      connectTimeout: settings.connectTimeoutMs,
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
      pipelining: 1,
    });
    this.dispatcher = {
      request: ((options: Dispatcher.RequestOptions, callback: RequestCallback) => this.request(options, callback)) as Dispatcher['request'],
    };
  }

  /**
   * Runs `forward` (a `reply.from(...)` call) with `body` as the body of the request it makes:
   * reply-from calls the dispatcher synchronously, without retries (the caller passes
   * `retryDelay: () => null`), so the body cannot reach another request.
   */
  send<T>(body: Readable | undefined, forward: () => T): T {
    this.pendingBody = body;
    try {
      return forward();
    } finally {
      this.pendingBody = undefined;
    }
  }

  /** Closes the connections, cutting requests still in flight. */
  async close(): Promise<void> {
    await this.pool.destroy();
  }

  private request(options: Dispatcher.RequestOptions, callback: RequestCallback): void {
    const body = this.pendingBody;
    this.pendingBody = undefined;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const { origin: _origin, ...rest } = options;
    this.pool.request(
      {
        ...rest,
        path: this.pathPrefix + options.path,
        body: body ?? rest.body,
        signal: controller.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      },
      (error, data) => {
        clearTimeout(timer);
        if (error) callback(timedOut ? new AnswerTimeoutError(this.timeoutMs) : error);
        else callback(null, data);
      },
    );
  }
}
