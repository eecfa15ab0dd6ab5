/** Routes of hashmap services and their fields (api.md §4). Thin: parse → call → status. */
import { Type } from 'typebox';
import { NoContent, faultResponses } from '../../../http/fault-schema.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestTime, requiredArgument, resourceId, setLocation } from '../../../http/request.js';
import { changeJournal } from '../../../http/change-journal.js';
import { isUuid } from '../../../kernel/ids.js';
import { IdFilter, QueryString } from '../../common/schemas.js';
import { noSuchField, noSuchService } from '../errors.js';
import { Field, FieldCollection, FieldCreateBody, MappingCollection, Service, ServiceCollection, ServiceCreateBody } from '../schemas.js';
import type { HashmapRouteOptions } from './context.js';

const IdQuery = (name: string) => QueryString({ [name]: Type.Optional(Type.String()) });
const ServicePath = Type.Object({ service_id: Type.String() });
/** Collections without arguments still refuse unknown query parameters (api.md §1). */
const NoQuery = QueryString({});
const IdBody = (name: string) => Type.Object({ [name]: Type.Optional(Type.String()) }, { additionalProperties: false });

/** Services, fields and the service sub-collections (fields, mappings). */
export const serviceRoutes: FastifyPluginAsyncTypebox<HashmapRouteOptions> = async (app, { repositories, hidden }) => {
  const { services, mappings } = repositories;
  const tags = ['hashmap'];

  app.get(
    '/services',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'List services',
        querystring: NoQuery,
        response: {
          200: ServiceCollection,
          ...faultResponses(400, 401, 403, 503),
        },
      },
    },
    async () => ({
      services: await services.listServices(),
    }),
  );
  app.get(
    '/services/:service_id',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Get a service',
        querystring: IdQuery('service_id'),
        response: {
          200: Service,
          ...faultResponses(400, 401, 403, 404, 503),
        },
      },
    },
    (request) => services.getService(resourceId(request, 'service_id', noSuchService)),
  );
  app.post(
    '/services',
    {
      config: { bodyName: 'service_data' },
      schema: {
        hide: hidden,
        tags,
        summary: 'Create a service',
        querystring: NoQuery,
        body: ServiceCreateBody,
        response: {
          201: Service,
          ...faultResponses(400, 401, 403, 409, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      const service = await services.createService(request.body.name, changeJournal(request));
      setLocation(request, reply, service.service_id);
      return reply.code(201).send(service);
    },
  );
  for (const url of ['/services', '/services/:service_id']) {
    app.delete(
      url,
      {
        schema: {
          hide: hidden,
          tags,
          summary: 'Delete a service with its fields, mappings and thresholds',
          response: {
            204: NoContent,
            ...faultResponses(400, 401, 403, 404, 413, 415, 503),
          },
          querystring: IdQuery('service_id'),
          body: IdBody('service_id'),
        },
      },
      async (request, reply) => {
        await services.deleteService(resourceId(request, 'service_id', noSuchService), changeJournal(request));
        return reply.code(204).send();
      },
    );
  }
  app.get(
    '/services/:service_id/fields',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'List the fields of a service',
        params: ServicePath,
        querystring: IdQuery('service_id'),
        response: {
          200: FieldCollection,
          ...faultResponses(400, 401, 403, 503),
        },
      },
    },
    async (request) => ({
      fields: isUuid(requiredArgument(request, 'service_id')) ? await services.listFields(request.params.service_id.toLowerCase()) : [],
    }),
  );
  app.get(
    '/services/:service_id/mappings',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'List the mappings of a service',
        params: ServicePath,
        querystring: IdQuery('service_id'),
        response: {
          200: MappingCollection,
          ...faultResponses(400, 401, 403, 503),
        },
      },
    },
    async (request) => ({
      mappings: isUuid(requiredArgument(request, 'service_id')) ? await mappings.list({ serviceId: request.params.service_id, now: requestTime() }) : [],
    }),
  );

  app.get(
    '/fields',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'List the fields of a service',
        querystring: QueryString({ service_id: Type.Optional(IdFilter) }),
        response: {
          200: FieldCollection,
          ...faultResponses(400, 401, 403, 404, 503),
        },
      },
    },
    async (request) => ({
      fields: await services.listFields(requiredArgument(request, 'service_id').toLowerCase()),
    }),
  );
  app.get(
    '/fields/:field_id',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Get a field',
        querystring: IdQuery('field_id'),
        response: {
          200: Field,
          ...faultResponses(400, 401, 403, 404, 503),
        },
      },
    },
    (request) => services.getField(resourceId(request, 'field_id', noSuchField)),
  );
  app.post(
    '/fields',
    {
      config: { bodyName: 'field_data' },
      schema: {
        hide: hidden,
        tags,
        summary: 'Create a field',
        querystring: NoQuery,
        body: FieldCreateBody,
        response: {
          201: Field,
          ...faultResponses(400, 401, 403, 404, 409, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      const field = await services.createField(request.body.service_id.toLowerCase(), request.body.name, changeJournal(request));
      setLocation(request, reply, field.field_id);
      return reply.code(201).send(field);
    },
  );
  for (const url of ['/fields', '/fields/:field_id']) {
    app.delete(
      url,
      {
        schema: {
          hide: hidden,
          tags,
          summary: 'Delete a field with its mappings and thresholds',
          response: {
            204: NoContent,
            ...faultResponses(400, 401, 403, 404, 413, 415, 503),
          },
          querystring: IdQuery('field_id'),
          body: IdBody('field_id'),
        },
      },
      async (request, reply) => {
        await services.deleteField(resourceId(request, 'field_id', noSuchField), changeJournal(request));
        return reply.code(204).send();
      },
    );
  }
};
