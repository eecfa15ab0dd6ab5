/**
 * Response schemas of the error bodies, for the route schemas (so that `/v1/openapi.json` lists
 * every status a route answers): CloudKitty's WSME fault
 * `{"faultcode": "Client"|"Server", "faultstring": "<message>", "debuginfo": null}` (docs/api.md §1)
 * and the v2 module routes' flask-style `{"message": "<message>"}` (docs/rating.md §2).
 *
 * Fastify serializes a reply with the schema of its status: these schemas list exactly the keys
 * {@link faultBody} and the v2 error handler send, in the same order, so the bodies come out as
 * they did without a schema. A status without a schema is still sent with `JSON.stringify`.
 */
import { Type, type TSchema } from 'typebox';

/** The statuses a route may declare a fault for. */
export type FaultStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 502 | 503 | 504;

const DESCRIPTIONS: Record<FaultStatus, string> = {
  400: 'Bad input: an invalid argument, attribute or value',
  401: 'Keystone mode: no valid token',
  403: 'Keystone mode: the policy does not allow the call',
  404: 'Unknown resource id',
  409: 'Conflict with an existing resource',
  413: 'Request body too large',
  415: 'Request body not application/json',
  422: 'A rating script failed on the submitted data',
  502: 'A service Tariff reads from (CloudKitty) failed or is unreachable',
  503: 'Database or script sandbox unavailable (may come with Retry-After)',
  504: 'A service Tariff reads from (CloudKitty) or the work itself took too long',
};

/** The WSME fault body (`faultBody` in http/faults.ts), described for one status. */
export function faultSchema(description?: string) {
  return Type.Object(
    {
      faultcode: Type.Unsafe<'Client' | 'Server'>({
        type: 'string',
        enum: ['Client', 'Server'],
      }),
      faultstring: Type.String(),
      debuginfo: Type.Null(),
    },
    {
      additionalProperties: false,
      ...(description === undefined ? {} : { description }),
    },
  );
}

/** The v2 module routes' error body `{"message": "..."}`, described for one status. */
export function messageSchema(description?: string) {
  return Type.Object(
    {
      message: Type.String(),
    },
    {
      additionalProperties: false,
      ...(description === undefined ? {} : { description }),
    },
  );
}

function responses<S extends FaultStatus, T extends TSchema>(statuses: S[], schema: (description: string) => T): Record<S, T> {
  const answer = {} as Record<S, T>;
  for (const status of statuses) answer[status] = schema(DESCRIPTIONS[status]);
  return answer;
}

/** `{ 400: <fault>, 404: <fault>, ... }` for a route schema's `response`. */
export function faultResponses<S extends FaultStatus>(...statuses: S[]) {
  return responses(statuses, faultSchema);
}

/** `{ 400: <message>, 404: <message>, ... }`, for the v2 module routes. */
export function messageResponses<S extends FaultStatus>(...statuses: S[]) {
  return responses(statuses, messageSchema);
}

/**
 * A 204's schema: no body (OpenAPI lists the status without content). Typed `undefined` so a
 * handler's `reply.code(204).send()` sends no payload and nothing is serialized, as before.
 */
export const NoContent = Type.Unsafe<undefined>({
  type: 'null',
  description: 'Done, no body',
});

/** A 302 of an applied update: CloudKitty's code, `Location` to follow once, no body (update-answers.ts). */
export const UpdateRedirect = Type.Unsafe<undefined>({
  type: 'null',
  description: 'Updated; Location names the object (a PUT there changes nothing and answers 204)',
});
