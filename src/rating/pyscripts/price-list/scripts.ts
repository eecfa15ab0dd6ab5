/**
 * The scripts of a price list: the document's `scripts` (schema, reading) and the stored ones
 * (live, `end` null or after a time), in one shape so that they compare.
 */
import { Type } from 'typebox';
import type { StoredDateTimes } from '../../../database/stored-datetimes.js';
import { readRuleDate, reportDuplicates } from '../../common/document-rules.js';
import { NullableString } from '../../common/schemas.js';
import { COLUMN_WIDTH, DESCRIPTION_LENGTH } from '../../../database/column-widths.js';
import type { DocumentPath, DocumentReader } from '../../contract/price-list-section.js';
import type { PyscriptsDb } from '../tables.js';
import { scriptChecksum } from '../validation.js';
import { decompressedSource } from '../repository.js';

/** The pyscripts member: `scripts`, each identified by its name. */
export const pyscriptsPriceListMembers = {
  scripts: Type.Array(
    Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: COLUMN_WIDTH.name }),
        data: Type.String({ description: 'Python source' }),
        description: Type.Optional(NullableString({ maxLength: DESCRIPTION_LENGTH })),
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

/** Reads `scripts`: dates, and no two versions of a name valid at the same time. */
export async function readScripts(members: Readonly<Record<string, unknown>>, reader: DocumentReader): Promise<DocumentScript[]> {
  const scripts: DocumentScript[] = [];
  const raw = (members.scripts as (Record<string, unknown> | undefined)[] | undefined) ?? [];
  for (const [index, entry] of raw.entries()) {
    if (entry === undefined) continue;
    const path = ['scripts', index];
    const start = readRuleDate(reader, entry, path, 'start');
    const end = readRuleDate(reader, entry, path, 'end');
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
    scripts.push(script);
  }
  await reportDuplicates(reader, scripts, (script) => script.name, 'same name');
  return scripts;
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
    data: decompressedSource(row.data, row.checksum),
    checksum: row.checksum,
    description: row.description,
    start: times.fromStorage(row.start),
    end: row.end === null ? null : times.fromStorage(row.end),
  }));
}
