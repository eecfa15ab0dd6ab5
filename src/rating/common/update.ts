/**
 * Partial updates (PUT) the way api.md §6 wants them: attributes absent from the body keep their
 * values (fix: CloudKitty cleared an omitted `description`/`end`); read-only and immutable
 * attributes may be echoed back unchanged; a changed immutable one is a 400 naming it.
 */
import { invalidInput } from '../../kernel/errors.js';
import { formatApiDateTime, parseDateTime } from './datetime.js';

/** How one attribute of a resource behaves on update. */
export interface AttributeRule {
  /** Whether the update may change it. */
  mutable: boolean;
  /**
   * Turns client input into the stored/API form used for comparison (e.g. a decimal into its
   * fixed-scale text). Throws a 400 for invalid input. Identity when absent.
   */
  normalize?: (value: unknown) => unknown;
}

/** The outcome of comparing a PUT body with the stored object. */
export interface UpdateDiff {
  /** New values (normalised) of the mutable attributes that differ from the stored ones. */
  changes: Record<string, unknown>;
  /** Names of those attributes. */
  changed: string[];
}

/**
 * Compares a PUT body (already shape-checked) with the stored object in API form.
 *
 * @throws BadRequestError when an attribute's input is invalid, or an immutable one differs.
 */
export function diffUpdate(
  stored: Readonly<Record<string, unknown>>,
  body: Readonly<Record<string, unknown>>,
  rules: Readonly<Record<string, AttributeRule>>,
): UpdateDiff {
  const changes: Record<string, unknown> = {};
  for (const [attribute, input] of Object.entries(body)) {
    const rule = rules[attribute];
    if (!rule) continue;
    const value = rule.normalize ? rule.normalize(input) : input;
    if (value === stored[attribute]) continue;
    if (!rule.mutable) {
      throw invalidInput(attribute, input, 'Cannot set read only field.');
    }
    changes[attribute] = value;
  }
  return { changes, changed: Object.keys(changes) };
}

/** A read-only datetime echoed back: compared in API form; an invalid one is a 400 naming `attribute`. */
export function readOnlyDateTime(attribute: string): AttributeRule {
  return {
    mutable: false,
    normalize: (value) => (value === null ? null : formatApiDateTime(parseDateTime(value, attribute))),
  };
}

/** UUIDs compare case-insensitively; stored ones are lowercase. */
export const lowercaseUuid = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value);

/**
 * Attributes every versioned rule (mapping, script) has: `name` is immutable, the audit columns
 * are read-only, `description`, `start` and `end` may change (api.md §6).
 */
export const VERSIONED_RULE_ATTRIBUTES: Readonly<Record<string, AttributeRule>> = {
  name: { mutable: false },
  created_at: readOnlyDateTime('created_at'),
  deleted: readOnlyDateTime('deleted'),
  created_by: { mutable: false },
  updated_by: { mutable: false },
  deleted_by: { mutable: false },
  description: { mutable: true },
  start: {
    mutable: true,
    normalize: (value) => {
      if (value === null) throw invalidInput('start', value, 'Mandatory field missing.');
      return formatApiDateTime(parseDateTime(value, 'start', 'start'));
    },
  },
  end: {
    mutable: true,
    normalize: (value) => (value === null ? null : formatApiDateTime(parseDateTime(value, 'end', 'end'))),
  },
};
