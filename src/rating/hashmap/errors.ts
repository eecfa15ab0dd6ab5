/** The hashmap module's errors, with CloudKitty's messages. */
import { BadRequestError, ConflictError, NotFoundError } from '../../kernel/errors.js';

/** 404 `No such service: None (UUID: {id})`. */
export const noSuchService = (id: string) => new NotFoundError(`No such service: None (UUID: ${id})`);
/** 404 `No such field: {id}`. */
export const noSuchField = (id: string) => new NotFoundError(`No such field: ${id}`);
/** 404 `No such group: None (UUID: {id})`. */
export const noSuchGroup = (id: string) => new NotFoundError(`No such group: None (UUID: ${id})`);
/** 404 `No such mapping: {id}`. */
export const noSuchMapping = (id: string) => new NotFoundError(`No such mapping: ${id}`);
/** 404 `No such threshold: {id}`. */
export const noSuchThreshold = (id: string) => new NotFoundError(`No such threshold: ${id}`);

/** A referenced parent or group named in a request body that does not exist is a 400 (CloudKitty compat). */
export const asBadRequest = (error: NotFoundError) => new BadRequestError(error.message);

/** 409 `Service {name} already exists (UUID: {id})`. */
export const serviceExists = (name: string, id: string) => new ConflictError(`Service ${name} already exists (UUID: ${id})`);
/** 409 `Field {name} already exists (UUID: {id})`. */
export const fieldExists = (name: string, id: string) => new ConflictError(`Field ${name} already exists (UUID: ${id})`);
/** 409 `Group {name} already exists (UUID: {id})`. */
export const groupExists = (name: string, id: string) => new ConflictError(`Group ${name} already exists (UUID: ${id})`);

/** Which parent a rule hangs on: a service or one of its fields. */
export interface ParentRef {
  kind: 'service' | 'field';
  id: string;
}

/** 409 `Mapping '{value}' already exists for {field|service} '{parent id}', tenant: '{tenant}'`. */
export const mappingExists = (value: string | null, parent: ParentRef, tenant: string | null) =>
  new ConflictError(`Mapping '${value ?? 'None'}' already exists for ${parent.kind} '${parent.id}', tenant: '${tenant ?? 'None'}'`);
/** 409 `Mapping name '{name}' is already used by mapping {id}`. */
export const mappingNameUsed = (name: string, id: string) => new ConflictError(`Mapping name '${name}' is already used by mapping ${id}`);
/** 409 for a threshold with the same level, parent, tenant and group. */
export const thresholdExists = (level: string, parent: ParentRef, tenant: string | null) =>
  new ConflictError(`Threshold '${level}' already exists for ${parent.kind} '${parent.id}', tenant: '${tenant ?? 'None'}'`);
/** 404 `Mapping has no group (UUID: {id})`: CloudKitty compat, also for an unknown mapping. */
export const mappingHasNoGroup = (id: string) => new NotFoundError(`Mapping has no group (UUID: ${id})`);
/** 404 `Threshold has no group (UUID: {id})`: CloudKitty compat, also for an unknown threshold. */
export const thresholdHasNoGroup = (id: string) => new NotFoundError(`Threshold has no group (UUID: ${id})`);
