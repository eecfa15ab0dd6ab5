/**
 * The rating modules through the v2 API (docs/api.md §8): each module's description, whether it
 * is enabled and its priority, and changing the last two.
 */
import type { Answer, RequestBody } from './answers.js';
import { call } from './client.js';

/** A module as `GET /v2/rating/modules` lists it. */
export type Module = Answer<'/v2/rating/modules/{module_id}', 'get'>;

/** What a module's change sends: `enabled`, `priority` or both. */
export type ModuleChange = RequestBody<'/v2/rating/modules/{module_id}', 'put'>;

/** Every rating module. @throws ApiError */
export async function listModules(): Promise<Module[]> {
  return (await call<Answer<'/v2/rating/modules', 'get'>>('GET', '/v2/rating/modules')).modules;
}

/** Enables, disables or reprioritises a module. @throws ApiError */
export async function changeModule(module: Module, change: ModuleChange): Promise<void> {
  await call('PUT', `/v2/rating/modules/${encodeURIComponent(module.module_id)}`, change);
}
