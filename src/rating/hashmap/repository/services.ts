/** SQL for hashmap services and their fields: plain (unversioned) resources. */
import { randomUUID } from 'node:crypto';
import type { Database } from '../../../database/connection.js';
import { inWriteTransaction } from '../../../database/transaction.js';
import type { ChangeJournal } from '../../../database/change-journal.js';
import { hashmapTables, type HashmapDb } from '../tables.js';
import { fieldExists, noSuchField, noSuchService, serviceExists } from '../errors.js';
import type { Field, Service } from '../schemas.js';
import { resolveService } from './parents.js';

/** A service as its GET answers it, read on `db` (the database or a transaction). @throws NotFoundError when unknown. */
async function serviceIn(db: HashmapDb, uuid: string): Promise<Service> {
  const row = await db.selectFrom('hashmap_services').select(['service_id', 'name']).where('service_id', '=', uuid).executeTakeFirst();
  if (!row) throw noSuchService(uuid);
  return row;
}

/** A field as its GET answers it, read on `db` (the database or a transaction). @throws NotFoundError when unknown. */
async function fieldIn(db: HashmapDb, uuid: string): Promise<Field> {
  const row = await db
    .selectFrom('hashmap_fields as f')
    .innerJoin('hashmap_services as s', 's.id', 'f.service_id')
    .select(['f.field_id', 'f.name', 's.service_id'])
    .where('f.field_id', '=', uuid)
    .executeTakeFirst();
  if (!row) throw noSuchField(uuid);
  return row;
}

/** Services of the hashmap module and their fields. */
export class ServiceRepository {
  private readonly db: HashmapDb;

  constructor(private readonly database: Database) {
    this.db = hashmapTables(database.db);
  }

  /** Every service, in creation order. */
  listServices(): Promise<Service[]> {
    return this.db.selectFrom('hashmap_services').select(['service_id', 'name']).orderBy('id').execute();
  }

  /** @throws NotFoundError `No such service: None (UUID: {id})`. */
  getService(uuid: string): Promise<Service> {
    return serviceIn(this.db, uuid);
  }

  /**
   * Creates a service, recorded in `journal`.
   *
   * @throws ConflictError `Service {name} already exists (UUID: {id})`.
   */
  createService(name: string, journal: ChangeJournal): Promise<Service> {
    return inWriteTransaction(this.database, journal, async (tariffTransaction, serialize) => {
      const transaction = hashmapTables(tariffTransaction);
      await serialize();
      const existing = await transaction.selectFrom('hashmap_services').select('service_id').where('name', '=', name).executeTakeFirst();
      if (existing) throw serviceExists(name, existing.service_id);
      const service = { service_id: randomUUID(), name };
      await transaction.insertInto('hashmap_services').values(service).execute();
      journal.record({ kind: 'service', objectId: service.service_id, action: 'create', before: null, after: service });
      return service;
    });
  }

  /**
   * Deletes a service with its fields, mappings and thresholds (foreign-key cascades, one
   * statement), recorded in `journal`.
   *
   * @throws NotFoundError when unknown.
   */
  async deleteService(uuid: string, journal: ChangeJournal): Promise<void> {
    // The 404 is thrown inside the transaction: a refused delete writes nothing.
    await inWriteTransaction(this.database, journal, async (transaction) => {
      const before = await serviceIn(hashmapTables(transaction), uuid);
      const result = await hashmapTables(transaction).deleteFrom('hashmap_services').where('service_id', '=', uuid).executeTakeFirst();
      if (result.numDeletedRows === 0n) throw noSuchService(uuid);
      journal.record({ kind: 'service', objectId: uuid, action: 'delete', before, after: null });
    });
  }

  /** Fields of a service (none when the service is unknown), in creation order. */
  listFields(serviceUuid: string): Promise<Field[]> {
    return this.db
      .selectFrom('hashmap_fields as f')
      .innerJoin('hashmap_services as s', 's.id', 'f.service_id')
      .select(['f.field_id', 'f.name', 's.service_id'])
      .where('s.service_id', '=', serviceUuid)
      .orderBy('f.id')
      .execute();
  }

  /** @throws NotFoundError `No such field: {id}`. */
  getField(uuid: string): Promise<Field> {
    return fieldIn(this.db, uuid);
  }

  /**
   * Creates a field of a service, recorded in `journal`.
   *
   * @throws BadRequestError when the service does not exist.
   * @throws ConflictError `Field {name} already exists (UUID: {id})` for a name already used in the service.
   */
  createField(serviceUuid: string, name: string, journal: ChangeJournal): Promise<Field> {
    return inWriteTransaction(this.database, journal, async (tariffTransaction, serialize) => {
      const transaction = hashmapTables(tariffTransaction);
      const service = await resolveService(transaction, serviceUuid);
      await serialize();
      const existing = await transaction
        .selectFrom('hashmap_fields')
        .select('field_id')
        .where('service_id', '=', service.key)
        .where('name', '=', name)
        .executeTakeFirst();
      if (existing) throw fieldExists(name, existing.field_id);
      const fieldId = randomUUID();
      await transaction.insertInto('hashmap_fields').values({ field_id: fieldId, name, service_id: service.key }).execute();
      const field = { field_id: fieldId, name, service_id: serviceUuid };
      journal.record({ kind: 'field', objectId: fieldId, action: 'create', before: null, after: field });
      return field;
    });
  }

  /** Deletes a field with its mappings and thresholds, recorded in `journal`. @throws NotFoundError when unknown. */
  async deleteField(uuid: string, journal: ChangeJournal): Promise<void> {
    await inWriteTransaction(this.database, journal, async (transaction) => {
      const before = await fieldIn(hashmapTables(transaction), uuid);
      const result = await hashmapTables(transaction).deleteFrom('hashmap_fields').where('field_id', '=', uuid).executeTakeFirst();
      if (result.numDeletedRows === 0n) throw noSuchField(uuid);
      journal.record({ kind: 'field', objectId: uuid, action: 'delete', before, after: null });
    });
  }
}
