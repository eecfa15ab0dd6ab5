/** Time helpers shared by every layer. */

/** `date` rounded down to a whole second: rules and audit times are kept to the second. */
export function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}
