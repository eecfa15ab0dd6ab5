/**
 * The apply's confirmation, asked on the terminal: `Apply these changes? [y/N]`. Only `y` or `yes`
 * applies; anything else, or the end of input, does not.
 */
import { createInterface } from 'node:readline/promises';

/**
 * Asks the question on `output` and reads one answer from `input`.
 *
 * @returns whether the operator answered yes.
 */
export async function confirm(question: string, input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Promise<boolean> {
  const reader = createInterface({ input, output, terminal: false });
  try {
    const closed = new Promise<string>((resolve) => reader.once('close', () => resolve('')));
    const answer = await Promise.race([reader.question(question), closed]);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    reader.close();
  }
}
