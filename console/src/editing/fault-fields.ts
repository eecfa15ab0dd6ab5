/**
 * Which input a server fault concerns. The hashmap API's messages (docs/api.md §4, §6; the server's
 * `src/rating/hashmap/errors.ts`, `validation.ts`, `common/versioning.ts`, `kernel/errors.ts`)
 * name the attribute they refuse, in words or by their shape; the editor shows each message at
 * that attribute's input, and a message naming none (or an attribute the form has no input for)
 * as an alert for the whole form.
 */

/** A message's shape and the API attribute it concerns. */
const FAULT_ATTRIBUTES: readonly { pattern: RegExp; attribute: string | ((match: RegExpMatchArray) => string) }[] = [
  // `Invalid input for field/attribute cost. Value: 'abc'. …` (types, decimals, dates, lengths, read-only).
  { pattern: /^Invalid input for field\/attribute ([A-Za-z_]+)\b/, attribute: (match) => match[1] },
  { pattern: /^Cannot create a rule with start in the past\b/, attribute: 'start' },
  { pattern: /^Cannot create a rule with start after end\b/, attribute: 'end' },
  { pattern: /^End date must be in the future\b/, attribute: 'end' },
  { pattern: /^Mapping name '.*' is already used by mapping /s, attribute: 'name' },
  { pattern: /^Mapping '.*' already exists for (field|service) /s, attribute: 'value' },
  { pattern: /^Threshold '.*' already exists for (field|service) /s, attribute: 'level' },
  { pattern: /^You must specify a value for a field mapping\./, attribute: 'value' },
  { pattern: /^You can't specify a value and a service_id\./, attribute: 'value' },
  { pattern: /^(Service|Field|Group) .* already exists \(UUID: /s, attribute: 'name' },
  { pattern: /^No such group: /, attribute: 'group_id' },
];

/**
 * The API attribute (`cost`, `start`, `value`, `name`, `group_id`, …) a fault message concerns,
 * or undefined when it names none (`You must specify one parent.`, `Cannot update a rule that was
 * already processed …`).
 */
export function faultAttribute(message: string): string | undefined {
  for (const { pattern, attribute } of FAULT_ATTRIBUTES) {
    const match = message.match(pattern);
    if (match !== null) return typeof attribute === 'string' ? attribute : attribute(match);
  }
  return undefined;
}

/**
 * Where a form shows a fault: at the input of the attribute it concerns when the form has one
 * among `inputs` (the attributes it shows as inputs), else undefined (the form's own alert).
 */
export function faultInput(message: string, inputs: readonly string[]): string | undefined {
  const attribute = faultAttribute(message);
  return attribute !== undefined && inputs.includes(attribute) ? attribute : undefined;
}
