/** Routes of hashmap mappings and `types` (api.md §4, §6). Thin: parse → call → status. */
import { Type } from 'typebox';
import { NoContent, UpdateRedirect, faultResponses } from '../../../http/fault-schema.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actingUser, requestTime, resourceId, setLocation } from '../../../http/request.js';
import { changeJournal } from '../../../http/change-journal.js';
import { BooleanText, QueryString, queryBoolean } from '../../common/schemas.js';
import { mappingHasNoGroup, noSuchMapping } from '../errors.js';
import { mappingFiltersFrom, parseMappingCreate } from '../validation.js';
import { Group, Mapping, MappingCollection, MappingCreateBody, MappingListQuery, MappingUpdateBody, RULE_TYPES } from '../schemas.js';
import type { HashmapRouteOptions } from './context.js';

const IdQuery = QueryString({ mapping_id: Type.Optional(Type.String()) });

/** Mappings: list with filters, get, create (`force`), update, soft delete, group of a mapping. */
export const mappingRoutes: FastifyPluginAsyncTypebox<HashmapRouteOptions> = async (app, { repositories, hidden }) => {
  const { mappings } = repositories;
  const tags = ['hashmap'];

  app.get(
    '/types',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Rule types',
        querystring: QueryString({}),
        response: {
          200: Type.Array(Type.String()),
          ...faultResponses(400, 401, 403),
        },
      },
    },
    async () => [...RULE_TYPES],
  );

  app.get(
    '/mappings',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'List mappings',
        querystring: MappingListQuery,
        response: {
          200: MappingCollection,
          ...faultResponses(400, 401, 403, 503),
        },
      },
    },
    async (request) => {
      const now = requestTime();
      return { mappings: await mappings.list(mappingFiltersFrom(request.query, now)) };
    },
  );
  app.get(
    '/mappings/group',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Get the group of a mapping',
        querystring: IdQuery,
        response: {
          200: Group,
          ...faultResponses(400, 401, 403, 404, 503),
        },
      },
    },
    (request) => mappings.groupOf(resourceId(request, 'mapping_id', mappingHasNoGroup)),
  );
  app.get(
    '/mappings/:mapping_id',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Get a mapping',
        querystring: IdQuery,
        response: {
          200: Mapping,
          ...faultResponses(400, 401, 403, 404, 503),
        },
      },
    },
    (request) => mappings.get(resourceId(request, 'mapping_id', noSuchMapping)),
  );
  app.post(
    '/mappings',
    {
      config: { bodyName: 'mapping_data' },
      schema: {
        hide: hidden,
        tags,
        summary: 'Create a mapping',
        querystring: QueryString({ force: Type.Optional(BooleanText) }),
        body: MappingCreateBody,
        response: {
          201: Mapping,
          ...faultResponses(400, 401, 403, 404, 409, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      const now = requestTime();
      const draft = parseMappingCreate(request.body, now, queryBoolean(request.query.force) ?? false);
      const mapping = await mappings.create(draft, { actor: actingUser(request), now }, changeJournal(request));
      setLocation(request, reply, mapping.mapping_id);
      return reply.code(201).send(mapping);
    },
  );
  for (const url of ['/mappings', '/mappings/:mapping_id']) {
    app.put(
      url,
      {
        config: { bodyName: 'mapping', updateAnswer: 'redirect' },
        schema: {
          hide: hidden,
          tags,
          summary: 'Update a mapping (api.md §6)',
          querystring: IdQuery,
          body: MappingUpdateBody,
          response: {
            302: UpdateRedirect,
            200: Mapping,
            ...faultResponses(400, 401, 403, 404, 409, 413, 415, 503),
          },
        },
        // CloudKitty's order of checks: an unknown mapping is a 404 before any body fault.
        preValidation: async (request) => {
          await mappings.get(resourceId(request, 'mapping_id', noSuchMapping));
        },
      },
      async (request, reply) => {
        const id = resourceId(request, 'mapping_id', noSuchMapping);
        const mapping = await mappings.update(id, request.body, { actor: actingUser(request), now: requestTime() }, changeJournal(request));
        setLocation(request, reply, mapping.mapping_id);
        return mapping;
      },
    );
    app.delete(
      url,
      {
        schema: {
          hide: hidden,
          tags,
          summary: 'Soft-delete a mapping',
          response: {
            204: NoContent,
            ...faultResponses(400, 401, 403, 404, 413, 415, 503),
          },
          querystring: IdQuery,
          body: Type.Object({ mapping_id: Type.Optional(Type.String()) }, { additionalProperties: false }),
        },
      },
      async (request, reply) => {
        await mappings.delete(resourceId(request, 'mapping_id', noSuchMapping), { actor: actingUser(request), now: requestTime() }, changeJournal(request));
        return reply.code(204).send();
      },
    );
  }
};
