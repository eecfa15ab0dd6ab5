/** Routes of hashmap services, fields and groups (api.md §4). Thin: parse → call → status. */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actingUser, requestTime, requiredArgument, resourceId, setLocation } from '../../../http/request.js';
import { isUuid } from '../../../kernel/ids.js';
import { BooleanText, QueryString, UuidText, queryBoolean } from '../../common/schemas.js';
import { toStorageDateTime } from '../../common/datetime.js';
import { noSuchField, noSuchGroup, noSuchService } from '../errors.js';
import {
  Field, FieldCollection, FieldCreateBody, Group, GroupCollection, GroupCreateBody, MappingCollection,
  Service, ServiceCollection, ServiceCreateBody, ThresholdCollection,
} from '../schemas.js';
import type { HashmapRouteOptions } from './context.js';

const IdQuery = (name: string) => QueryString({ [name]: Type.Optional(Type.String()) });
const ServicePath = Type.Object({ service_id: Type.String() });
/** Collections without arguments still refuse unknown query parameters (api.md §1). */
const NoQuery = QueryString({});
const IdBody = (name: string) => Type.Object({ [name]: Type.Optional(Type.String()) }, { additionalProperties: false });

/** Services, fields, groups and the group/service sub-collections. */
export const catalogRoutes: FastifyPluginAsyncTypebox<HashmapRouteOptions> = async (app, { repositories, hidden }) => {
  const { catalog, mappings, thresholds } = repositories;
  const tags = ['hashmap'];

  app.get('/services', { schema: { hide: hidden, tags, summary: 'List services', querystring: NoQuery, response: { 200: ServiceCollection } } }, async () => ({
    services: await catalog.listServices(),
  }));
  app.get('/services/:service_id', { schema: { hide: hidden, tags, summary: 'Get a service', querystring: IdQuery('service_id'), response: { 200: Service } } }, (request) =>
    catalog.getService(resourceId(request, 'service_id', noSuchService)),
  );
  app.post('/services', { config: { bodyName: 'service_data' }, schema: { hide: hidden, tags, summary: 'Create a service', querystring: NoQuery, body: ServiceCreateBody, response: { 201: Service } } }, async (request, reply) => {
    const service = await catalog.createService(request.body.name);
    setLocation(request, reply, service.service_id);
    return reply.code(201).send(service);
  });
  for (const url of ['/services', '/services/:service_id']) {
    app.delete(url, { schema: { hide: hidden, tags, summary: 'Delete a service with its fields, mappings and thresholds', querystring: IdQuery('service_id'), body: IdBody('service_id') } }, async (request, reply) => {
      await catalog.deleteService(resourceId(request, 'service_id', noSuchService));
      return reply.code(204).send();
    });
  }
  app.get('/services/:service_id/fields', { schema: { hide: hidden, tags, summary: 'List the fields of a service', params: ServicePath, querystring: IdQuery('service_id'), response: { 200: FieldCollection } } }, async (request) => ({
    fields: isUuid(requiredArgument(request, 'service_id')) ? await catalog.listFields(request.params.service_id.toLowerCase()) : [],
  }));
  app.get('/services/:service_id/mappings', { schema: { hide: hidden, tags, summary: 'List the mappings of a service', params: ServicePath, querystring: IdQuery('service_id'), response: { 200: MappingCollection } } }, async (request) => ({
    mappings: isUuid(requiredArgument(request, 'service_id')) ? await mappings.list({ serviceId: request.params.service_id, now: requestTime() }) : [],
  }));

  app.get('/fields', { schema: { hide: hidden, tags, summary: 'List the fields of a service', querystring: QueryString({ service_id: Type.Optional(UuidText) }), response: { 200: FieldCollection } } }, async (request) => ({
    fields: await catalog.listFields(requiredArgument(request, 'service_id').toLowerCase()),
  }));
  app.get('/fields/:field_id', { schema: { hide: hidden, tags, summary: 'Get a field', querystring: IdQuery('field_id'), response: { 200: Field } } }, (request) =>
    catalog.getField(resourceId(request, 'field_id', noSuchField)),
  );
  app.post('/fields', { config: { bodyName: 'field_data' }, schema: { hide: hidden, tags, summary: 'Create a field', querystring: NoQuery, body: FieldCreateBody, response: { 201: Field } } }, async (request, reply) => {
    const field = await catalog.createField(request.body.service_id.toLowerCase(), request.body.name);
    setLocation(request, reply, field.field_id);
    return reply.code(201).send(field);
  });
  for (const url of ['/fields', '/fields/:field_id']) {
    app.delete(url, { schema: { hide: hidden, tags, summary: 'Delete a field with its mappings and thresholds', querystring: IdQuery('field_id'), body: IdBody('field_id') } }, async (request, reply) => {
      await catalog.deleteField(resourceId(request, 'field_id', noSuchField));
      return reply.code(204).send();
    });
  }

  app.get('/groups', { schema: { hide: hidden, tags, summary: 'List groups', querystring: NoQuery, response: { 200: GroupCollection } } }, async () => ({ groups: await catalog.listGroups() }));
  app.get('/groups/:group_id', { schema: { hide: hidden, tags, summary: 'Get a group', querystring: IdQuery('group_id'), response: { 200: Group } } }, (request) =>
    catalog.getGroup(resourceId(request, 'group_id', noSuchGroup)),
  );
  app.post('/groups', { config: { bodyName: 'group_data' }, schema: { hide: hidden, tags, summary: 'Create a group', querystring: NoQuery, body: GroupCreateBody, response: { 201: Group } } }, async (request, reply) => {
    const group = await catalog.createGroup(request.body.name);
    setLocation(request, reply, group.group_id);
    return reply.code(201).send(group);
  });
  for (const url of ['/groups', '/groups/:group_id']) {
    app.delete(
      url,
      {
        schema: {
          hide: hidden,
          tags,
          summary: 'Delete a group; recursive also deletes its rules, else they are detached',
          querystring: QueryString({ group_id: Type.Optional(Type.String()), recursive: Type.Optional(BooleanText) }),
          body: Type.Object({ group_id: Type.Optional(Type.String()), recursive: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        },
      },
      async (request, reply) => {
        const recursive = request.body?.recursive ?? queryBoolean(request.query.recursive) ?? false;
        const now = requestTime();
        await catalog.deleteGroup(resourceId(request, 'group_id', noSuchGroup), { recursive, actor: actingUser(request), now: toStorageDateTime(now) });
        return reply.code(204).send();
      },
    );
  }
  for (const url of ['/groups/mappings', '/groups/:group_id/mappings']) {
    app.get(url, { schema: { hide: hidden, tags, summary: 'List the mappings of a group', querystring: IdQuery('group_id'), response: { 200: MappingCollection } } }, async (request) => ({
      mappings: await mappings.listOfGroup(resourceId(request, 'group_id', noSuchGroup)),
    }));
  }
  for (const url of ['/groups/thresholds', '/groups/:group_id/thresholds']) {
    app.get(url, { schema: { hide: hidden, tags, summary: 'List the thresholds of a group', querystring: IdQuery('group_id'), response: { 200: ThresholdCollection } } }, async (request) => ({
      thresholds: await thresholds.listOfGroup(resourceId(request, 'group_id', noSuchGroup)),
    }));
  }
};
