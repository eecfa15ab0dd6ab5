/**
 * Typed errors of the domain. Each carries the HTTP status and CloudKitty's message; the HTTP
 * layer turns them into the WSME fault body `{"faultcode", "faultstring", "debuginfo"}`.
 */

/** Base class: an error whose message is meant for the API client. */
export class TariffError extends Error {
  constructor(
    /** HTTP status code (4xx for the client's faults, 5xx for the server's). */
    readonly status: number,
    message: string,
    /**
     * Members added to the fault body beside `faultcode`, `faultstring` and `debuginfo`, for
     * faults that carry structure (a price list's `problems`); none for CloudKitty's faults.
     */
    readonly faultDetails?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the request is malformed or breaks a rule. */
export class BadRequestError extends TariffError {
  constructor(message: string) {
    super(400, message);
  }
}

/** 404: the addressed object does not exist (or is soft-deleted). */
export class NotFoundError extends TariffError {
  constructor(message: string) {
    super(404, message);
  }
}

/** 409: the request clashes with an existing object (name, key or validity interval). */
export class ConflictError extends TariffError {
  constructor(message: string) {
    super(409, message);
  }
}

/** Longest excerpt of an offending value quoted in a message. */
const QUOTED_VALUE_LIMIT = 80;

/** Renders a client value the way WSME quotes it (`None` for a missing value), shortened. */
export function quoteValue(value: unknown): string {
  let text: string;
  if (value === undefined || value === null) text = 'None';
  else if (typeof value === 'string') text = value;
  else if (typeof value === 'boolean') text = value ? 'True' : 'False';
  else if (typeof value === 'number')
    text = String(value); // JSON.stringify(Infinity) would say 'null'
  else text = JSON.stringify(value) ?? String(value);
  return text.length > QUOTED_VALUE_LIMIT ? `${text.slice(0, QUOTED_VALUE_LIMIT)}...` : text;
}

/**
 * 400 for one attribute, worded as WSME's `InvalidInput`:
 * `Invalid input for field/attribute {attribute}. Value: '{value}'. {reason}`.
 */
export function invalidInput(attribute: string, value: unknown, reason: string): BadRequestError {
  return new BadRequestError(`Invalid input for field/attribute ${attribute}. Value: '${quoteValue(value)}'. ${reason}`);
}
