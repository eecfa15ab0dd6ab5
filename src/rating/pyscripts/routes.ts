/** Routes of pyscripts scripts (api.md §5-§6), mounted under `module_config/pyscripts`. */
import { Type } from 'typebox';
import { NoContent, faultResponses } from '../../http/fault-schema.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actingUser, requestTime, resourceId, setLocation } from '../../http/request.js';
import { changeJournal } from '../../http/change-journal.js';
import { ruleFiltersFrom } from '../common/rule-filters.js';
import { BooleanText, QueryString, queryBoolean } from '../common/schemas.js';
import { noSuchScript } from './errors.js';
import type { ScriptRepository } from './repository.js';
import { parseScriptCreate } from './validation.js';
import { ensureCompiles, type ScriptCompiler } from './compile.js';
import { Script, ScriptCollection, ScriptCreateBody, ScriptListQuery, ScriptUpdateBody } from './schemas.js';

/** Options of {@link scriptRoutes}. */
export interface ScriptRouteOptions {
  scripts: ScriptRepository;
  /** The sandbox's compiler; sources are checked on POST and PUT when it is there. */
  compiler: ScriptCompiler | undefined;
  /** Hide from the OpenAPI document (the `/v1/billing` alias). */
  hidden: boolean;
}

const IdQuery = QueryString({ script_id: Type.Optional(Type.String()) });

/** Scripts: list (`no_data` and filters), get, create (`force`), update, soft delete. */
export const scriptRoutes: FastifyPluginAsyncTypebox<ScriptRouteOptions> = async (app, { scripts, compiler, hidden }) => {
  const tags = ['pyscripts'];
  app.get(
    '/scripts',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'List scripts',
        querystring: ScriptListQuery,
        response: {
          200: ScriptCollection,
          ...faultResponses(400, 401, 403, 503),
        },
      },
    },
    async (request) => ({
      scripts: await scripts.list(ruleFiltersFrom(request.query, requestTime()), { withData: !queryBoolean(request.query.no_data) }),
    }),
  );
  app.get(
    '/scripts/:script_id',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Get a script',
        querystring: IdQuery,
        response: {
          200: Script,
          ...faultResponses(400, 401, 403, 404, 503),
        },
      },
    },
    (request) => scripts.get(resourceId(request, 'script_id', noSuchScript)),
  );
  app.post(
    '/scripts',
    {
      config: { bodyName: 'script_data' },
      schema: {
        hide: hidden,
        tags,
        summary: 'Create a script',
        querystring: QueryString({ force: Type.Optional(BooleanText) }),
        body: ScriptCreateBody,
        response: {
          201: Script,
          ...faultResponses(400, 401, 403, 409, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      const now = requestTime();
      const draft = parseScriptCreate(request.body, now, queryBoolean(request.query.force) ?? false);
      await ensureCompiles(compiler, draft.name, draft.data);
      const script = await scripts.create(draft, { actor: actingUser(request), now }, changeJournal(request));
      setLocation(request, reply, script.script_id);
      return reply.code(201).send(script);
    },
  );
  for (const url of ['/scripts', '/scripts/:script_id']) {
    app.put(
      url,
      {
        config: { bodyName: 'script_data', updateAnswer: 'created' },
        schema: {
          hide: hidden,
          tags,
          summary: 'Update a script (api.md §6)',
          querystring: IdQuery,
          body: ScriptUpdateBody,
          response: {
            201: Script,
            ...faultResponses(400, 401, 403, 404, 409, 413, 415, 503),
          },
        },
        preValidation: async (request) => {
          await scripts.get(resourceId(request, 'script_id', noSuchScript));
        },
      },
      async (request, reply) => {
        const checkSource = (name: string, source: string) => ensureCompiles(compiler, name, source);
        const script = await scripts.update(
          resourceId(request, 'script_id', noSuchScript),
          request.body,
          { actor: actingUser(request), now: requestTime() },
          changeJournal(request),
          checkSource,
        );
        setLocation(request, reply, script.script_id);
        return script;
      },
    );
    app.delete(
      url,
      {
        schema: {
          hide: hidden,
          tags,
          summary: 'Soft-delete a script',
          response: {
            204: NoContent,
            ...faultResponses(400, 401, 403, 404, 413, 415, 503),
          },
          querystring: IdQuery,
          body: Type.Object({ script_id: Type.Optional(Type.String()) }, { additionalProperties: false }),
        },
      },
      async (request, reply) => {
        await scripts.delete(resourceId(request, 'script_id', noSuchScript), { actor: actingUser(request), now: requestTime() }, changeJournal(request));
        return reply.code(204).send();
      },
    );
  }
};
