/**
 * The shapes of the API's answers and bodies, read from the types generated from the server's
 * `/v1/openapi.json` (schema.d.ts, `npm run console:api-types`): a changed route changes them, and
 * the console's use of them no longer type-checks where it no longer fits.
 */
import type { paths } from './schema.js';

/** A route of `/v1/openapi.json`, e.g. `/v1/rating/module_config/pyscripts/scripts`. */
export type Route = keyof paths;

/** The HTTP methods, lowercase as in the document. */
type Method = 'get' | 'post' | 'put' | 'delete';

/** The methods `R` serves. */
export type MethodOf<R extends Route> = { [M in Method]: paths[R][M] extends { responses: unknown } ? M : never }[Method];

/** The JSON body that `M R` answers with `Status` (200 unless said), as the document declares it. */
export type Answer<R extends Route, M extends MethodOf<R>, Status extends number = 200> = paths[R][M] extends {
  responses: { [S in Status]: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** The JSON body `M R` takes, as the document declares it. */
export type RequestBody<R extends Route, M extends MethodOf<R>> = paths[R][M] extends { requestBody?: { content: { 'application/json': infer Body } } }
  ? Body
  : never;
