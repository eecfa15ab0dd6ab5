import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/kernel/errors.js';
import { checkNewValidity, checkValidityUpdate, intervalsOverlap, ruleState, validityOf, type Validity } from '../../src/rating/common/versioning.js';

const at = (iso: string) => new Date(`${iso}Z`);
const interval = (start: string, end: string | null): Validity => ({ start: at(start), end: end === null ? null : at(end) });

/** The BadRequestError message of `run`, or null when it does not throw. */
function failure(run: () => void): string | null {
  try {
    run();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).status).toBe(400);
    return (error as Error).message;
  }
}

describe('intervalsOverlap: half-open [start, end), null end = forever', () => {
  const cases: Array<[string, Validity, Validity, boolean]> = [
    ['identical bounded', interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), true],
    ['partial overlap', interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), interval('2030-01-15T00:00:00', '2030-03-01T00:00:00'), true],
    ['b inside a', interval('2030-01-01T00:00:00', '2030-12-01T00:00:00'), interval('2030-03-01T00:00:00', '2030-04-01T00:00:00'), true],
    ['adjacent a then b', interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), interval('2030-02-01T00:00:00', '2030-03-01T00:00:00'), false],
    ['adjacent b then a', interval('2030-02-01T00:00:00', '2030-03-01T00:00:00'), interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), false],
    ['one second of overlap', interval('2030-01-01T00:00:00', '2030-02-01T00:00:01'), interval('2030-02-01T00:00:00', '2030-03-01T00:00:00'), true],
    ['disjoint with a gap', interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), interval('2030-05-01T00:00:00', '2030-06-01T00:00:00'), false],
    ['two open-ended, a first', interval('2030-01-01T00:00:00', null), interval('2030-06-01T00:00:00', null), true],
    ['two open-ended, b first', interval('2030-06-01T00:00:00', null), interval('2030-01-01T00:00:00', null), true],
    ['open a starting inside bounded b', interval('2030-01-15T00:00:00', null), interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), true],
    ['bounded a covering the start of open b', interval('2030-01-01T00:00:00', '2030-12-01T00:00:00'), interval('2030-06-01T00:00:00', null), true],
    ['open a starting where bounded b ends', interval('2030-02-01T00:00:00', null), interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), false],
    ['bounded a ending where open b starts', interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), interval('2030-02-01T00:00:00', null), false],
    ['open a starting after bounded b', interval('2030-03-01T00:00:00', null), interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), false],
    ['open a starting before bounded b', interval('2029-01-01T00:00:00', null), interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), true],
    ['empty a [t, t) inside b', interval('2030-01-10T00:00:00', '2030-01-10T00:00:00'), interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), true],
    ['empty a [t, t) at the start of b', interval('2030-01-01T00:00:00', '2030-01-01T00:00:00'), interval('2030-01-01T00:00:00', '2030-02-01T00:00:00'), false],
  ];
  it.each(cases)('%s', (_name, a, b, expected) => {
    expect(intervalsOverlap(a, b)).toBe(expected);
    // Symmetric.
    expect(intervalsOverlap(b, a)).toBe(expected);
  });
});

describe('checkNewValidity', () => {
  const now = at('2026-06-01T12:00:00');

  it('refuses a chosen start in the past with CloudKitty message', () => {
    expect(failure(() => checkNewValidity(interval('2020-01-01T00:00:00', null), now, { startGiven: true, force: false }))).toBe(
      'Cannot create a rule with start in the past. start=[2020-01-01 00:00:00] current time=[2026-06-01 12:00:00].',
    );
    expect(failure(() => checkNewValidity(interval('2026-06-01T11:59:59', null), now, { startGiven: true, force: false }))).toBe(
      'Cannot create a rule with start in the past. start=[2026-06-01 11:59:59] current time=[2026-06-01 12:00:00].',
    );
  });

  it('accepts a start equal to now, in the future, a forced past start, or a default start', () => {
    expect(failure(() => checkNewValidity(interval('2026-06-01T12:00:00', null), now, { startGiven: true, force: false }))).toBeNull();
    expect(failure(() => checkNewValidity(interval('2027-01-01T00:00:00', null), now, { startGiven: true, force: false }))).toBeNull();
    expect(failure(() => checkNewValidity(interval('2020-01-01T00:00:00', null), now, { startGiven: true, force: true }))).toBeNull();
    expect(failure(() => checkNewValidity(interval('2020-01-01T00:00:00', null), now, { startGiven: false, force: false }))).toBeNull();
  });

  it('refuses an end before the start, also with force', () => {
    const message = 'Cannot create a rule with start after end. start=[2027-02-01 00:00:00] end=[2027-01-31 23:59:59].';
    expect(failure(() => checkNewValidity(interval('2027-02-01T00:00:00', '2027-01-31T23:59:59'), now, { startGiven: true, force: false }))).toBe(message);
    expect(failure(() => checkNewValidity(interval('2027-02-01T00:00:00', '2027-01-31T23:59:59'), now, { startGiven: true, force: true }))).toBe(message);
  });

  it('checks the past start before the end', () => {
    expect(failure(() => checkNewValidity(interval('2020-02-01T00:00:00', '2020-01-01T00:00:00'), now, { startGiven: true, force: false }))).toBe(
      'Cannot create a rule with start in the past. start=[2020-02-01 00:00:00] current time=[2026-06-01 12:00:00].',
    );
  });

  it('accepts an end equal to the start and an end after it', () => {
    expect(failure(() => checkNewValidity(interval('2027-01-01T00:00:00', '2027-01-01T00:00:00'), now, { startGiven: true, force: false }))).toBeNull();
    expect(failure(() => checkNewValidity(interval('2027-01-01T00:00:00', '2027-01-02T00:00:00'), now, { startGiven: true, force: false }))).toBeNull();
  });
});

describe('ruleState', () => {
  const now = at('2026-06-01T12:00:00');
  it('is not-started when start > now', () => {
    expect(ruleState(interval('2026-06-01T12:00:01', null), now)).toBe('not-started');
    expect(ruleState(interval('2027-01-01T00:00:00', '2027-02-01T00:00:00'), now)).toBe('not-started');
  });
  it('is running when start ≤ now and end null or after now', () => {
    expect(ruleState(interval('2026-06-01T12:00:00', null), now)).toBe('running');
    expect(ruleState(interval('2020-01-01T00:00:00', null), now)).toBe('running');
    expect(ruleState(interval('2020-01-01T00:00:00', '2026-06-01T12:00:01'), now)).toBe('running');
  });
  it('is over when end ≤ now', () => {
    expect(ruleState(interval('2020-01-01T00:00:00', '2026-06-01T12:00:00'), now)).toBe('over');
    expect(ruleState(interval('2020-01-01T00:00:00', '2021-01-01T00:00:00'), now)).toBe('over');
  });
});

describe('checkValidityUpdate', () => {
  const now = at('2026-06-01T12:00:00');
  const running = interval('2026-01-01T00:00:00', null);
  const runningBounded = interval('2026-01-01T00:00:00', '2026-12-31T00:00:00');
  const over = interval('2026-01-01T00:00:00', '2026-05-01T00:00:00');
  const future = interval('2026-07-01T00:00:00', '2026-08-01T00:00:00');
  const ONLY_END = 'You are allowed to update only the attribute [end] as this rule is already running as it started on [2026-01-01 00:00:00]';
  const OVER = 'Cannot update a rule that was already processed and has a defined end date.';

  it('over: refuses every update, even an unchanged or end-only one', () => {
    expect(failure(() => checkValidityUpdate(over, over, [], now))).toBe(OVER);
    expect(failure(() => checkValidityUpdate(over, interval('2026-01-01T00:00:00', '2027-01-01T00:00:00'), ['end'], now))).toBe(OVER);
    expect(failure(() => checkValidityUpdate(over, over, ['cost'], now))).toBe(OVER);
  });

  it('running: accepts no change and a change of end alone', () => {
    expect(failure(() => checkValidityUpdate(running, running, [], now))).toBeNull();
    expect(failure(() => checkValidityUpdate(running, interval('2026-01-01T00:00:00', '2026-09-01T00:00:00'), ['end'], now))).toBeNull();
    // Moved again (fix: CloudKitty allowed setting it once).
    expect(failure(() => checkValidityUpdate(runningBounded, interval('2026-01-01T00:00:00', '2027-03-01T00:00:00'), ['end'], now))).toBeNull();
    // Cleared again: open-ended.
    expect(failure(() => checkValidityUpdate(runningBounded, running, ['end'], now))).toBeNull();
    // An end equal to now is not in the past.
    expect(failure(() => checkValidityUpdate(running, interval('2026-01-01T00:00:00', '2026-06-01T12:00:00'), ['end'], now))).toBeNull();
  });

  it('running: refuses any other attribute, alone or with end', () => {
    for (const changed of [['cost'], ['start'], ['description'], ['data'], ['end', 'cost'], ['type', 'end']]) {
      expect(failure(() => checkValidityUpdate(running, running, changed, now))).toBe(ONLY_END);
    }
  });

  it('running: refuses an end in the past with CloudKitty message (no trailing period)', () => {
    expect(failure(() => checkValidityUpdate(running, interval('2026-01-01T00:00:00', '2026-06-01T11:59:59'), ['end'], now))).toBe(
      'End date must be in the future. end=[2026-06-01 11:59:59] current time=[2026-06-01 12:00:00]',
    );
  });

  it('not started: anything may change, with the create checks applied again', () => {
    expect(failure(() => checkValidityUpdate(future, future, ['cost', 'type', 'description'], now))).toBeNull();
    expect(failure(() => checkValidityUpdate(future, interval('2026-07-15T00:00:00', '2026-09-01T00:00:00'), ['start', 'end'], now))).toBeNull();
    expect(failure(() => checkValidityUpdate(future, interval('2026-05-01T00:00:00', '2026-08-01T00:00:00'), ['start'], now))).toBe(
      'Cannot create a rule with start in the past. start=[2026-05-01 00:00:00] current time=[2026-06-01 12:00:00].',
    );
    expect(failure(() => checkValidityUpdate(future, interval('2026-07-01T00:00:00', '2026-06-30T00:00:00'), ['end'], now))).toBe(
      'Cannot create a rule with start after end. start=[2026-07-01 00:00:00] end=[2026-06-30 00:00:00].',
    );
    expect(failure(() => checkValidityUpdate(future, interval('2026-09-01T00:00:00', '2026-08-01T00:00:00'), ['start'], now))).toBe(
      'Cannot create a rule with start after end. start=[2026-09-01 00:00:00] end=[2026-08-01 00:00:00].',
    );
  });
});

describe('validityOf', () => {
  it('reads the API form of start and end', () => {
    expect(validityOf({ start: '2026-12-01T10:00:00+00:00', end: null })).toEqual({ start: at('2026-12-01T10:00:00'), end: null });
    expect(validityOf({ start: '2026-12-01T10:00:00+00:00', end: '2027-01-01T00:00:00+00:00' })).toEqual({
      start: at('2026-12-01T10:00:00'),
      end: at('2027-01-01T00:00:00'),
    });
  });
});
