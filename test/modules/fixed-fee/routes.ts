/** `module_config/fixed_fee/fees`: list, create, delete. */
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setLocation } from '../../../src/http/request.js';
import { changeJournal } from '../../../src/http/change-journal.js';
import type { ModuleRouteOptions } from '../../../src/rating/contract/rating-module.js';
import { parseDecimal, COST_COLUMN } from '../../../src/rating/common/decimal.js';
import { FeeRepository } from './repository.js';

const Fee = Type.Object({ fee_id: Type.String(), service: Type.String(), fee: Type.String() });
const FeeBody = Type.Object(
  { service: Type.String({ minLength: 1, maxLength: 255 }), fee: Type.Union([Type.String(), Type.Number()]) },
  { additionalProperties: false },
);

const feeRoutes: FastifyPluginAsyncTypebox<{ fees: FeeRepository; hidden: boolean }> = async (app, { fees, hidden }) => {
  const tags = ['fixed_fee'];
  app.get('/fees', { schema: { hide: hidden, tags, response: { 200: Type.Object({ fees: Type.Array(Fee) }) } } }, async () => ({ fees: await fees.list() }));
  app.post('/fees', { config: { bodyName: 'fee' }, schema: { hide: hidden, tags, body: FeeBody, response: { 201: Fee } } }, async (request, reply) => {
    const fee = await fees.create(request.body.service, parseDecimal(request.body.fee, COST_COLUMN, 'fee'), changeJournal(request));
    setLocation(request, reply, fee.fee_id);
    return reply.code(201).send(fee);
  });
  app.delete('/fees/:fee_id', { schema: { hide: hidden, tags, params: Type.Object({ fee_id: Type.String() }) } }, async (request, reply) => {
    await fees.delete(request.params.fee_id, changeJournal(request));
    return reply.code(204).send();
  });
};

/** The module's configuration API, on the database it is given. */
export const fixedFeeRoutes: FastifyPluginAsync<ModuleRouteOptions> = async (app, { database, hidden }) => {
  await app.register(feeRoutes, { fees: new FeeRepository(database), hidden });
};
