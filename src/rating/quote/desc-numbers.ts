/**
 * The numbers of a quote's desc (metadata, groupby) as the hashmap compares them: read with
 * their JSON source text (route config `numberTextUnder`), so that `2.0` is Python's `2.0`
 * (rating.md §5), and refused when Python could not read them as CloudKitty would price them.
 */
import { invalidInput } from '../../kernel/errors.js';
import { JsonNumberText } from '../../kernel/json-number.js';
import { pythonNumberFault } from '../common/python-number.js';

/** The members of a v2 point whose numbers keep their source text. */
export const V2_NUMBER_TEXT_MEMBERS: readonly string[] = ['metadata', 'groupby'];
/** The members of a v1 resource whose numbers keep their source text (`desc` may be flat). */
export const V1_NUMBER_TEXT_MEMBERS: readonly string[] = ['desc', 'metadata', 'groupby'];

/**
 * Refuses a number of `members` that Python reads as infinity (`1e400`) or cannot read (an
 * integer of more than 4,300 digits): `pythonNumberFault`.
 *
 * fix: CloudKitty would match `inf` as the text `'inf'` and let it reach every threshold; Tariff
 * answers 400 instead.
 *
 * @param members - a point's metadata or groupby (or a v1 desc), undefined when absent.
 * @param where - the attribute path of `members`, e.g. `usage.compute[0].metadata`.
 * @throws BadRequestError `Invalid input for field/attribute usage.compute[0].metadata.size. Value: '1e400'. ...`.
 */
export function refuseUnreadableNumbers(members: Readonly<Record<string, unknown>> | undefined, where: string): void {
  if (!members) return;
  for (const [key, value] of Object.entries(members)) {
    if (!(value instanceof JsonNumberText)) continue;
    const fault = pythonNumberFault(value.text);
    if (fault) throw invalidInput(`${where}.${key}`, value.text, fault);
  }
}
