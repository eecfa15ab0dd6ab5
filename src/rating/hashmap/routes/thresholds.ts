/** Routes of hashmap thresholds (api.md §4). Thin: parse → call → status. */
import { Type } from 'typebox';
import { NoContent, UpdateRedirect, faultResponses } from '../../../http/fault-schema.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { resourceId, setLocation } from '../../../http/request.js';
import { changeJournal } from '../../../http/change-journal.js';
import { QueryString } from '../../common/schemas.js';
import { noSuchThreshold, thresholdHasNoGroup } from '../errors.js';
import { parentFiltersFrom, parseThresholdCreate } from '../validation.js';
import { Group, Threshold, ThresholdCollection, ThresholdCreateBody, ThresholdListQuery, ThresholdUpdateBody } from '../schemas.js';
import type { HashmapRouteOptions } from './context.js';

const IdQuery = QueryString({ threshold_id: Type.Optional(Type.String()) });

/** Thresholds: list with filters, get, create, update, delete, group of a threshold. */
export const thresholdRoutes: FastifyPluginAsyncTypebox<HashmapRouteOptions> = async (app, { repositories, hidden }) => {
  const { thresholds } = repositories;
  const tags = ['hashmap'];

  app.get(
    '/thresholds',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'List thresholds (no filter: all)',
        querystring: ThresholdListQuery,
        response: {
          200: ThresholdCollection,
          ...faultResponses(400, 401, 403, 503),
        },
      },
    },
    async (request) => ({
      thresholds: await thresholds.list(parentFiltersFrom(request.query)),
    }),
  );
  app.get(
    '/thresholds/group',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Get the group of a threshold',
        querystring: IdQuery,
        response: {
          200: Group,
          ...faultResponses(400, 401, 403, 404, 503),
        },
      },
    },
    (request) => thresholds.groupOf(resourceId(request, 'threshold_id', thresholdHasNoGroup)),
  );
  app.get(
    '/thresholds/:threshold_id',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Get a threshold',
        querystring: IdQuery,
        response: {
          200: Threshold,
          ...faultResponses(400, 401, 403, 404, 503),
        },
      },
    },
    (request) => thresholds.get(resourceId(request, 'threshold_id', noSuchThreshold)),
  );
  app.post(
    '/thresholds',
    {
      config: { bodyName: 'threshold_data' },
      schema: {
        hide: hidden,
        tags,
        summary: 'Create a threshold',
        querystring: QueryString({}),
        body: ThresholdCreateBody,
        response: {
          201: Threshold,
          ...faultResponses(400, 401, 403, 404, 409, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      const threshold = await thresholds.create(parseThresholdCreate(request.body), changeJournal(request));
      setLocation(request, reply, threshold.threshold_id);
      return reply.code(201).send(threshold);
    },
  );
  for (const url of ['/thresholds', '/thresholds/:threshold_id']) {
    app.put(
      url,
      {
        config: { bodyName: 'threshold', updateAnswer: 'redirect' },
        schema: {
          hide: hidden,
          tags,
          summary: 'Update a threshold',
          querystring: IdQuery,
          body: ThresholdUpdateBody,
          response: {
            302: UpdateRedirect,
            200: Threshold,
            ...faultResponses(400, 401, 403, 404, 409, 413, 415, 503),
          },
        },
        preValidation: async (request) => {
          await thresholds.get(resourceId(request, 'threshold_id', noSuchThreshold));
        },
      },
      async (request, reply) => {
        const threshold = await thresholds.update(resourceId(request, 'threshold_id', noSuchThreshold), request.body, changeJournal(request));
        setLocation(request, reply, threshold.threshold_id);
        return threshold;
      },
    );
    app.delete(
      url,
      {
        schema: {
          hide: hidden,
          tags,
          summary: 'Delete a threshold',
          response: {
            204: NoContent,
            ...faultResponses(400, 401, 403, 404, 413, 415, 503),
          },
          querystring: IdQuery,
          body: Type.Object({ threshold_id: Type.Optional(Type.String()) }, { additionalProperties: false }),
        },
      },
      async (request, reply) => {
        await thresholds.delete(resourceId(request, 'threshold_id', noSuchThreshold), changeJournal(request));
        return reply.code(204).send();
      },
    );
  }
};
