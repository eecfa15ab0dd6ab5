/**
 * The HTTP answers to the sandbox's errors that the quote routes and the compile check share.
 * The sandbox's own errors carry no status (`errors.ts`); this is where they get one, and the
 * name of the setting behind the limit they met.
 */
import { TariffError } from '../../../kernel/errors.js';
import type { BusyReason, SandboxBusyError } from './errors.js';

/** The settings (`src/config.ts`) behind the queue's bounds. */
const BUSY_SETTINGS: Record<BusyReason, string> = {
  queue: 'TARIFF_SANDBOX_QUEUE_LENGTH',
  tenant: 'TARIFF_SANDBOX_TENANT_RUNS',
  wait: 'TARIFF_SANDBOX_QUEUE_WAIT_MS',
};

/**
 * 503 with `Retry-After: {retryAfterSeconds}` (the fault handler sends the header for any
 * TariffError with a `retryAfterSeconds`): the sandbox had no room for the call, which did not run.
 */
export class SandboxBusyFault extends TariffError {
  constructor(
    message: string,
    /** Seconds after which a retry may find room. */
    readonly retryAfterSeconds: number,
  ) {
    super(503, message);
  }
}

/**
 * The fault for a call the sandbox refused or dropped from its queue:
 * `The PyScripts sandbox is busy: {what} ({SETTING} = {limit}); try again in {n} s.`
 */
export function sandboxBusyFault(error: SandboxBusyError): SandboxBusyFault {
  const seconds = error.retryAfterSeconds;
  return new SandboxBusyFault(`${error.message} (${BUSY_SETTINGS[error.reason]} = ${error.limit}); try again in ${seconds} s.`, seconds);
}
