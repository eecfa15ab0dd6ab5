/**
 * Module routes (rating.md §2), for every registered module: v1 `/v1/rating/modules` (WSME
 * faults, PUT answers 200 with the module: fix, CloudKitty answered 302) and v2
 * `/v2/rating/modules` (flask-style `{"message": ...}` errors, PUT answers 204), and
 * `reload_modules`.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotFoundError, TariffError } from '../../kernel/errors.js';
import { classifyDatabaseError } from '../../database/errors.js';
import { validationMessage } from '../../http/faults.js';
import { NoContent, UpdateRedirect, faultResponses, messageResponses } from '../../http/fault-schema.js';
import { changeJournal } from '../../http/change-journal.js';
import { setLocation } from '../../http/request.js';
import type { ModuleStateRepository } from './repository.js';
import type { ModuleState } from './states.js';
import { ModuleIdQuery, ModuleV1, ModuleV1Collection, ModuleV1UpdateBody, ModuleV2, ModuleV2Collection, ModuleV2UpdateBody } from './schemas.js';

/** Options of the module state route plugins. */
export interface ModuleStateRouteOptions {
  modules: ModuleStateRepository;
  /** Called after a change of module state or a `reload_modules`: drops cached rules. */
  onChange: () => void;
  /** Hide from the OpenAPI document (the `/v1/billing` alias). */
  hidden: boolean;
}

const v1 = (state: ModuleState): ModuleV1 => ({
  module_id: state.name,
  description: state.description,
  enabled: state.enabled,
  'hot-config': state.hotConfig,
  priority: state.priority,
});
const v2 = (state: ModuleState): ModuleV2 => ({
  module_id: state.name,
  description: state.description,
  enabled: state.enabled,
  hot_config: state.hotConfig,
  priority: state.priority,
});
const ModulePath = Type.Object({ module_id: Type.String() });

/** `/v1/rating/modules` and `/v1/rating/reload_modules`. */
export const moduleRoutesV1: FastifyPluginAsyncTypebox<ModuleStateRouteOptions> = async (app, { modules, onChange, hidden }) => {
  const tags = ['modules'];
  const find = async (name: string) => {
    const state = await modules.get(name);
    if (!state) throw new NotFoundError('Module not found.');
    return state;
  };
  app.get(
    '/modules',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'List rating modules',
        response: {
          200: ModuleV1Collection,
          ...faultResponses(401, 403, 503),
        },
      },
    },
    async () => ({
      modules: (await modules.list()).map(v1),
    }),
  );
  app.get(
    '/modules/:module_id',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Get a rating module',
        params: ModulePath,
        querystring: ModuleIdQuery,
        response: {
          200: ModuleV1,
          ...faultResponses(400, 401, 403, 404, 503),
        },
      },
    },
    async (request) => v1(await find(request.params.module_id)),
  );
  app.put(
    '/modules/:module_id',
    {
      config: { bodyName: 'module', updateAnswer: 'redirect' },
      schema: {
        hide: hidden,
        tags,
        summary: 'Enable, disable or prioritise a module',
        params: ModulePath,
        querystring: ModuleIdQuery,
        body: ModuleV1UpdateBody,
        response: {
          302: UpdateRedirect,
          200: ModuleV1,
          ...faultResponses(400, 401, 403, 404, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      await find(request.params.module_id);
      const state = await modules.update(request.params.module_id, { enabled: request.body.enabled, priority: request.body.priority }, changeJournal(request));
      onChange();
      setLocation(request, reply, request.params.module_id);
      return v1(state);
    },
  );
  app.get(
    '/reload_modules',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Drop every cached rule set',
        response: {
          204: NoContent,
          ...faultResponses(401, 403),
        },
      },
    },
    async (_request, reply) => {
      onChange();
      return reply.code(204).send();
    },
  );
};

/** `/v2/rating/modules`. */
export const moduleRoutesV2: FastifyPluginAsyncTypebox<ModuleStateRouteOptions> = async (app, { modules, onChange, hidden }) => {
  const tags = ['modules v2'];
  // v2 answers errors as CloudKitty's flask API does: {"message": ...}.
  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown[]; validationContext?: string }, _request, reply) => {
    if (error instanceof TariffError) return reply.code(error.status).send({ message: error.message });
    if (error.validation?.length) {
      return reply.code(400).send({
        message: validationMessage(error.validation[0] as Parameters<typeof validationMessage>[0], error.validationContext ?? 'body', 'module').message,
      });
    }
    // An unreachable, full or overloaded database is a 503 here too, not a 500.
    const classified = classifyDatabaseError(error);
    if (classified instanceof TariffError) return reply.code(classified.status).send({ message: classified.message });
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) reply.log.error({ err: error }, 'unexpected server fault');
    return reply.code(status).send({ message: status === 500 ? 'The server could not complete the request; the error is in its log.' : error.message });
  });
  const find = async (name: string) => {
    const state = await modules.get(name);
    if (!state) throw new NotFoundError(`Module '${name}' not found`);
    return state;
  };
  app.get(
    '/modules',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'List rating modules',
        response: {
          200: ModuleV2Collection,
          ...faultResponses(401, 403),
          ...messageResponses(503),
        },
      },
    },
    async () => ({
      modules: (await modules.list()).map(v2),
    }),
  );
  app.get(
    '/modules/:module_id',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Get a rating module',
        params: ModulePath,
        response: {
          200: ModuleV2,
          ...faultResponses(401, 403),
          ...messageResponses(404, 503),
        },
      },
    },
    async (request) => v2(await find(request.params.module_id)),
  );
  app.put(
    '/modules/:module_id',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Enable, disable or prioritise a module (partial body)',
        params: ModulePath,
        body: ModuleV2UpdateBody,
        response: {
          204: NoContent,
          ...faultResponses(401, 403),
          ...messageResponses(400, 404, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      await find(request.params.module_id);
      await modules.update(request.params.module_id, request.body, changeJournal(request));
      onChange();
      return reply.code(204).send();
    },
  );
};
