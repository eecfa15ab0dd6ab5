/**
 * The console editor's fault-to-input mapping (console/src/editing/fault-fields.ts) over the
 * server's real messages: each is produced by the server's own code (error factories, validation
 * and versioning checks, the decimal and datetime readers), so a changed wording fails here.
 */
import { describe, expect, it } from 'vitest';
import { faultAttribute, faultInput } from '../../console/src/editing/fault-fields.js';
import { invalidInput } from '../../src/kernel/errors.js';
import { checkNewValidity, checkValidityUpdate } from '../../src/rating/common/versioning.js';
import { parseDateTime } from '../../src/rating/common/datetime.js';
import { COST_COLUMN, LEVEL_COLUMN, parseDecimal } from '../../src/rating/common/decimal.js';
import {
  fieldExists,
  groupExists,
  mappingExists,
  mappingNameUsed,
  noSuchField,
  noSuchGroup,
  noSuchService,
  serviceExists,
  thresholdExists,
} from '../../src/rating/hashmap/errors.js';
import { checkMappingValue, parentOf } from '../../src/rating/hashmap/validation.js';

const ID = '6c1b4f5e-1f7a-4c7e-9a65-0d6cbf1f3c2a';
const at = (iso: string) => new Date(`${iso}Z`);

/** The message `run` throws. @throws Error when it throws nothing. */
function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a fault');
}

describe('faultAttribute: the attribute a server message concerns', () => {
  const cases: [string, string, string | undefined][] = [
    ['a cost that is not a number', messageOf(() => parseDecimal('abc', COST_COLUMN, 'cost')), 'cost'],
    ['a negative level', messageOf(() => parseDecimal('-1', LEVEL_COLUMN, 'level')), 'level'],
    ['a date that is not a date', messageOf(() => parseDateTime('soon', 'start')), 'start'],
    ['an end that is not a date', messageOf(() => parseDateTime('2026-13-40', 'end')), 'end'],
    ['a missing cost', invalidInput('cost', undefined, 'Mandatory field missing.').message, 'cost'],
    ['a bad type', invalidInput('type', 'flatt', 'Value should be one of: flat, rate').message, 'type'],
    ['a name too long', invalidInput('name', 'x'.repeat(33), 'Value should have a maximum character requirement of 32').message, 'name'],
    ['a read-only attribute changed', invalidInput('name', 'other', 'Cannot set read only field.').message, 'name'],
    [
      'a start in the past',
      messageOf(() => checkNewValidity({ start: at('2020-01-01T00:00:00'), end: null }, at('2026-01-01T00:00:00'), { startGiven: true, force: false })),
      'start',
    ],
    [
      'a start after the end',
      messageOf(() =>
        checkNewValidity({ start: at('2030-02-01T00:00:00'), end: at('2030-01-01T00:00:00') }, at('2026-01-01T00:00:00'), {
          startGiven: true,
          force: false,
        }),
      ),
      'end',
    ],
    [
      'an end put in the past on a running rule',
      messageOf(() =>
        checkValidityUpdate(
          { start: at('2026-01-01T00:00:00'), end: null },
          { start: at('2026-01-01T00:00:00'), end: at('2026-01-02T00:00:00') },
          ['end'],
          at('2026-02-01T00:00:00'),
        ),
      ),
      'end',
    ],
    ['a duplicate field mapping', mappingExists('m1.small', { kind: 'field', id: ID }, null).message, 'value'],
    ['a duplicate value with a quote in it', mappingExists("it's", { kind: 'field', id: ID }, 'demo').message, 'value'],
    ['a mapping name in use', mappingNameUsed('small-price', ID).message, 'name'],
    ['a duplicate threshold', thresholdExists('100.00000000', { kind: 'service', id: ID }, null).message, 'level'],
    ['a field mapping without value', messageOf(() => checkMappingValue({ kind: 'field', id: ID }, null)), 'value'],
    ['a service mapping with a value', messageOf(() => checkMappingValue({ kind: 'service', id: ID }, 'x')), 'value'],
    ['a service name in use', serviceExists('compute', ID).message, 'name'],
    ['a field name in use', fieldExists('flavor', ID).message, 'name'],
    ['a group name in use', groupExists('discounts', ID).message, 'name'],
    ['an unknown group', noSuchGroup(ID).message, 'group_id'],
    // Messages naming no input of the form: the form's own alert.
    ['an unknown service', noSuchService(ID).message, undefined],
    ['an unknown field', noSuchField(ID).message, undefined],
    ['no parent', messageOf(() => parentOf({})), undefined],
    [
      'a running rule changed beyond its end',
      messageOf(() =>
        checkValidityUpdate(
          { start: at('2026-01-01T00:00:00'), end: null },
          { start: at('2026-01-01T00:00:00'), end: null },
          ['cost'],
          at('2026-02-01T00:00:00'),
        ),
      ),
      undefined,
    ],
    [
      'an ended rule changed',
      messageOf(() =>
        checkValidityUpdate(
          { start: at('2026-01-01T00:00:00'), end: at('2026-01-02T00:00:00') },
          { start: at('2026-01-01T00:00:00'), end: null },
          ['end'],
          at('2026-02-01T00:00:00'),
        ),
      ),
      undefined,
    ],
    ['a concurrent change', 'The request conflicts with a concurrent change; try again.', undefined],
  ];
  it.each(cases)('%s', (_, message, attribute) => {
    expect(faultAttribute(message)).toBe(attribute);
  });
});

describe('faultInput: only an attribute the form has an input for', () => {
  it('places a duplicate value at the value input of a field mapping form', () => {
    expect(faultInput(mappingExists('m1.small', { kind: 'field', id: ID }, null).message, ['value', 'cost'])).toBe('value');
  });

  it('leaves a duplicate service mapping (no value input) to the form', () => {
    expect(faultInput(mappingExists(null, { kind: 'service', id: ID }, null).message, ['cost', 'name'])).toBeUndefined();
  });

  it('leaves a message naming no attribute to the form', () => {
    expect(faultInput('You must specify one parent.', ['cost'])).toBeUndefined();
  });
});
