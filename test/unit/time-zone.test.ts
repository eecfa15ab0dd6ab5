/**
 * One time zone with CloudKitty: wall time in an IANA zone both ways, checked against Python
 * itself (`datetime.fromtimestamp` and a naive datetime's `timestamp()` under `TZ=zone`, which is
 * how CloudKitty's processor reads its naive columns), DST transitions included.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TimeZone, UnknownTimeZoneError } from '../../src/kernel/time-zone.js';

const ZONES = ['Asia/Tokyo', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'America/St_Johns'];

/** Python under `TZ=zone`: each line `epoch` → wall text, or `wall text` → epoch, as CloudKitty reads them. */
function python(zone: string, script: string, input: string[]): string[] {
  const output = execFileSync('python3', ['-c', script], { input: input.join('\n'), env: { ...process.env, TZ: zone } });
  return output.toString().trim().split('\n');
}

const WALL_OF_EPOCH = `
import datetime, sys
for line in sys.stdin.read().split():
    print(datetime.datetime.fromtimestamp(int(line)).strftime('%Y-%m-%d %H:%M:%S'))
`;
const EPOCH_OF_WALL = `
import datetime, sys
for line in sys.stdin.read().strip().split('\\n'):
    print(int(datetime.datetime.strptime(line, '%Y-%m-%d %H:%M:%S').timestamp()))
`;

/** A deterministic spread of instants (1971-2037), plus every hour around each zone's 2026 transitions. */
function instants(zone: TimeZone): number[] {
  const spread: number[] = [];
  let seed = 12345;
  for (let index = 0; index < 400; index += 1) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    spread.push(Date.UTC(1971, 0, 1) / 1000 + (seed % (66 * 365 * 86400)));
  }
  for (let hour = 0; hour < 366 * 24; hour += 1) {
    const instant = Date.UTC(2026, 0, 1) + hour * 3_600_000;
    if (zone.offsetAt(instant) !== zone.offsetAt(instant + 3_600_000)) {
      for (let minute = -120; minute <= 180; minute += 15) spread.push(instant / 1000 + minute * 60);
    }
  }
  return spread;
}

const wallText = (wallMs: number) => new Date(wallMs).toISOString().slice(0, 19).replace('T', ' ');
const wallMsOf = (text: string) => new Date(`${text.replace(' ', 'T')}Z`).getTime();

describe('TimeZone', () => {
  it('names zones canonically and refuses unknown ones', () => {
    expect(TimeZone.named('UTC').isUtc).toBe(true);
    expect(TimeZone.named('Etc/UTC')).toBe(TimeZone.UTC);
    expect(TimeZone.named('asia/tokyo').name).toBe('Asia/Tokyo');
    expect(() => TimeZone.named('Mars/Olympus_Mons')).toThrow(UnknownTimeZoneError);
    expect(() => TimeZone.named('')).toThrow(UnknownTimeZoneError);
  });

  it('UTC is the identity', () => {
    const instant = Date.UTC(2026, 11, 1, 9, 30, 5);
    expect(TimeZone.UTC.wallClockAt(instant + 999)).toBe(instant);
    expect(TimeZone.UTC.instantOf(instant)).toBe(instant);
  });

  it('Tokyo: 2026-12-01T00:00Z is 09:00 on the wall', () => {
    const tokyo = TimeZone.named('Asia/Tokyo');
    expect(wallText(tokyo.wallClockAt(Date.UTC(2026, 11, 1)))).toBe('2026-12-01 09:00:00');
    expect(new Date(tokyo.instantOf(wallMsOf('2026-12-01 09:00:00'))).toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it("Paris: a repeated wall time is the earlier instant, a skipped one uses the offset before (Python's fold=0)", () => {
    const paris = TimeZone.named('Europe/Paris');
    // 2026-10-25 03:00 CEST → 02:00 CET: 02:30 happens at 00:30Z and 01:30Z.
    expect(new Date(paris.instantOf(wallMsOf('2026-10-25 02:30:00'))).toISOString()).toBe('2026-10-25T00:30:00.000Z');
    // 2026-03-29 02:00 CET → 03:00 CEST: 02:30 never happens; read at +01:00, 01:30Z.
    expect(new Date(paris.instantOf(wallMsOf('2026-03-29 02:30:00'))).toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });

  for (const name of ZONES) {
    it(`${name}: instant → wall time → instant agree with Python under TZ=${name}`, () => {
      const zone = TimeZone.named(name);
      const epochs = instants(zone);
      const walls = epochs.map((epoch) => wallText(zone.wallClockAt(epoch * 1000)));
      expect(walls).toEqual(python(name, WALL_OF_EPOCH, epochs.map(String)));
      // Wall times Python reads back (gaps and repeats included: every quarter hour around each transition).
      const around = epochs.flatMap((epoch, index) => [walls[index], wallText(epoch * 1000)]);
      const ours = around.map((text) => String(zone.instantOf(wallMsOf(text)) / 1000));
      expect(ours).toEqual(python(name, EPOCH_OF_WALL, around));
    });
  }
});
