/**
 * Resolution of public UUIDs to the integer keys the hashmap tables reference, inside the caller's
 * transaction. A parent named in a request body that does not exist is a 400 (CloudKitty compat).
 */
import type { HashmapDb } from '../tables.js';
import { ReusableQuery } from '../../../database/reusable-query.js';
import { asBadRequest, noSuchField, noSuchGroup, noSuchService } from '../errors.js';

/** A resolved parent: its integer key and UUID. */
export interface ResolvedRef {
  key: number;
  uuid: string;
}

const serviceKey = new ReusableQuery((db: HashmapDb, uuid) => db.selectFrom('hashmap_services').select('id').where('service_id', '=', uuid));
const fieldKey = new ReusableQuery((db: HashmapDb, uuid) => db.selectFrom('hashmap_fields').select('id').where('field_id', '=', uuid));
const groupKey = new ReusableQuery((db: HashmapDb, uuid) => db.selectFrom('hashmap_groups').select('id').where('group_id', '=', uuid));

/** @throws BadRequestError `No such service: None (UUID: {id})`. */
export async function resolveService(transaction: HashmapDb, uuid: string): Promise<ResolvedRef> {
  const [row] = await serviceKey.execute(transaction, uuid);
  if (!row) throw asBadRequest(noSuchService(uuid));
  return { key: row.id, uuid };
}

/** @throws BadRequestError `No such field: {id}`. */
export async function resolveField(transaction: HashmapDb, uuid: string): Promise<ResolvedRef> {
  const [row] = await fieldKey.execute(transaction, uuid);
  if (!row) throw asBadRequest(noSuchField(uuid));
  return { key: row.id, uuid };
}

/** @throws BadRequestError `No such group: None (UUID: {id})`. */
export async function resolveGroup(transaction: HashmapDb, uuid: string): Promise<ResolvedRef> {
  const [row] = await groupKey.execute(transaction, uuid);
  if (!row) throw asBadRequest(noSuchGroup(uuid));
  return { key: row.id, uuid };
}

/** Resolves an optional group; `null` stays `null`. */
export async function resolveOptionalGroup(transaction: HashmapDb, uuid: string | null): Promise<ResolvedRef | null> {
  return uuid === null ? null : resolveGroup(transaction, uuid);
}
