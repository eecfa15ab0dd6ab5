/**
 * Quote admission (rating.md §3, fix, issue 24: 80 concurrent 50,000-point quotes held
 * `/healthcheck` for 11 s): a budget of quote bytes in flight, per process and per tenant, as the
 * PyScripts sandbox's queue bounds script runs (`TARIFF_SANDBOX_TENANT_RUNS`). A quote is charged
 * its declared `Content-Length` (the route's body limit for a chunked body, whose size is not
 * known) from before its body is read until its answer is sent or its connection closes; one past
 * either budget is refused at once with 503 and `Retry-After`, before its body is read.
 *
 * A quote is never refused when nothing else is in flight (for its tenant, or in the process):
 * any quote up to the body limit is priced on an idle server, and a small quote is refused only
 * when the budget is really taken.
 */
import { TariffError } from '../../kernel/errors.js';

/** The budgets of a {@link QuoteAdmission}, in bytes. */
export interface QuoteBudgets {
  /** Quote bytes in flight in the process (`TARIFF_QUOTE_BYTES_IN_FLIGHT_MB`). */
  processBytes: number;
  /** Quote bytes in flight for one tenant (`TARIFF_QUOTE_TENANT_BYTES_MB`). */
  tenantBytes: number;
}

/** Which budget refused a quote: the process's or its tenant's. */
export type QuoteBusyReason = 'process' | 'tenant';

/** Seconds a refused caller is told to wait (`Retry-After`): quotes last about a second or less. */
export const QUOTE_RETRY_AFTER_SECONDS = 1;

/**
 * 503 with `Retry-After` (the fault handler sends it for any TariffError with a
 * `retryAfterSeconds`): the quote did not fit in the budget and was not read or priced.
 * `Quotes are busy: 70000000 bytes of quotes in flight for this tenant would pass
 * TARIFF_QUOTE_TENANT_BYTES_MB (33554432 bytes); try again in 1 s.`
 */
export class QuoteBusyFault extends TariffError {
  /** Seconds after which a retry may find room. */
  readonly retryAfterSeconds = QUOTE_RETRY_AFTER_SECONDS;

  constructor(
    /** The budget that refused the quote. */
    readonly reason: QuoteBusyReason,
    inFlight: number,
    limit: number,
  ) {
    const [whose, setting] = reason === 'tenant' ? ['for this tenant', 'TARIFF_QUOTE_TENANT_BYTES_MB'] : ['in this process', 'TARIFF_QUOTE_BYTES_IN_FLIGHT_MB'];
    super(
      503,
      `Quotes are busy: ${inFlight} bytes of quotes in flight ${whose} would pass ${setting} (${limit} bytes); try again in ${QUOTE_RETRY_AFTER_SECONDS} s.`,
    );
  }
}

/** Bytes in flight, in the process and by tenant. */
export class QuoteAdmission {
  private inFlight = 0;
  private readonly tenants = new Map<string, number>();
  /** Quotes refused since the admission was created, by budget. */
  readonly refused: Record<QuoteBusyReason, number> = { process: 0, tenant: 0 };

  constructor(private readonly budgets: QuoteBudgets) {}

  /** Quote bytes in flight in the process. */
  get bytesInFlight(): number {
    return this.inFlight;
  }

  /**
   * Charges `bytes` to the process and to `tenant`, or refuses.
   *
   * @param tenant - who asks (`callerOf` in routes.ts: the Keystone project, else the address).
   * @param bytes - the quote's body size, declared or at most.
   * @returns the release, to call once when the quote is done (later calls do nothing).
   * @throws QuoteBusyFault when the tenant's budget (first) or the process's would be passed
   *   while it, or the process, has another quote in flight.
   */
  admit(tenant: string, bytes: number): () => void {
    const tenantBytes = this.tenants.get(tenant) ?? 0;
    if (tenantBytes > 0 && tenantBytes + bytes > this.budgets.tenantBytes) {
      this.refused.tenant += 1;
      throw new QuoteBusyFault('tenant', tenantBytes + bytes, this.budgets.tenantBytes);
    }
    if (this.inFlight > 0 && this.inFlight + bytes > this.budgets.processBytes) {
      this.refused.process += 1;
      throw new QuoteBusyFault('process', this.inFlight + bytes, this.budgets.processBytes);
    }
    this.inFlight += bytes;
    this.tenants.set(tenant, tenantBytes + bytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= bytes;
      const left = (this.tenants.get(tenant) ?? bytes) - bytes;
      if (left > 0) this.tenants.set(tenant, left);
      else this.tenants.delete(tenant);
    };
  }
}
