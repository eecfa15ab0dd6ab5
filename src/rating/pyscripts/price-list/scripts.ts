/**
 * The scripts of a price list: the document's `scripts` (schema, reading) and the stored ones
 * (live, `end` null or after a time), in one shape so that they compare.
 */
import { inflateSync } from 'node:zlib';
import { Type } from 'typebox';
import type { StoredDateTimes } from '../../../database/stored-datetimes.js';
import { TariffError } from '../../../kernel/errors.js';
import { parseDateTime } from '../../common/datetime.js';
import { NullableString } from '../../common/schemas.js';
import type { DocumentPath, DocumentReader } from '../../contract/price-list-section.js';
import { formatDocumentPath } from '../../price-list/problems.js';
import type { PyscriptsDb } from '../tables.js';
import { scriptChecksum } from '../validation.js';

/** The pyscripts member: `scripts`, each identified by its name. */
export const pyscriptsPriceListMembers = {
  scripts: Type.Array(
    Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 255 }),
        data: Type.String({ description: 'Python source' }),
        description: Type.Optional(NullableString({ maxLength: 256 })),
        start: Type.Optional(NullableString({ description: 'ISO 8601; absent: in force from effective_at' })),
        end: Type.Optional(NullableString({ description: 'ISO 8601' })),
      },
      { additionalProperties: false },
    ),
    { description: 'Scripts by name (a name is shared by the versions of a script).' },
  ),
};

/** A script as a document gives it. */
export interface DocumentScript {
  path: DocumentPath;
  name: string;
  data: string;
  checksum: string;
  description: string | null;
  start: Date | null;
  end: Date | null;
}

/** A live script as stored. */
export interface StoredScript {
  id: number;
  scriptId: string;
  name: string;
  data: string;
  checksum: string;
  description: string | null;
  start: Date;
  end: Date | null;
}

function readDate(reader: DocumentReader, value: unknown, path: DocumentPath, key: 'start' | 'end'): Date | null {
  if (value === undefined || value === null) return null;
  try {
    return parseDateTime(value, key, key);
  } catch (error) {
    if (!(error instanceof TariffError)) throw error;
    reader.problem([...path, key], error.message);
    return null;
  }
}

/** Reads `scripts`: dates, and no two versions of a name valid at the same time. */
export function readScripts(members: Readonly<Record<string, unknown>>, reader: DocumentReader): DocumentScript[] {
  const scripts: DocumentScript[] = [];
  const raw = (members.scripts as (Record<string, unknown> | undefined)[] | undefined) ?? [];
  for (const [index, entry] of raw.entries()) {
    if (entry === undefined) continue;
    const path = ['scripts', index];
    const start = readDate(reader, entry.start, path, 'start');
    const end = readDate(reader, entry.end, path, 'end');
    if (start !== null && end !== null && end.getTime() < start.getTime()) reader.problem([...path, 'end'], 'end is before start');
    const data = entry.data as string;
    const script = {
      path,
      name: entry.name as string,
      data,
      checksum: scriptChecksum(data),
      description: (entry.description as string | null) ?? null,
      start,
      end,
    };
    const clash = scripts.find((other) => other.name === script.name && overlap(other, script));
    if (clash) reader.problem(path, `duplicate of ${formatDocumentPath(clash.path)}: same name, valid at the same time`);
    scripts.push(script);
  }
  return scripts;
}

function overlap(a: { start: Date | null; end: Date | null }, b: { start: Date | null; end: Date | null }): boolean {
  return (a.start?.getTime() ?? -Infinity) < (b.end?.getTime() ?? Infinity) && (b.start?.getTime() ?? -Infinity) < (a.end?.getTime() ?? Infinity);
}

/** Live scripts whose `end` is null or after `after`, with their source. */
export async function loadScripts(db: PyscriptsDb, after: Date, times: StoredDateTimes): Promise<StoredScript[]> {
  const rows = await db
    .selectFrom('pyscripts_scripts')
    .select(['id', 'script_id', 'name', 'data', 'checksum', 'description', 'start', 'end'])
    .where('deleted', 'is', null)
    .where((eb) => eb.or([eb('end', 'is', null), eb('end', '>', times.toStorage(after))]))
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    scriptId: row.script_id,
    name: row.name,
    data: inflateSync(row.data).toString('utf8'),
    checksum: row.checksum,
    description: row.description,
    start: times.fromStorage(row.start),
    end: row.end === null ? null : times.fromStorage(row.end),
  }));
}
