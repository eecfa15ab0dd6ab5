/**
 * Issue 5: Tariff in Keystone mode against a real Keystone (Debian's, started by setup.sh): tokens
 * validated and cached, 401 with `WWW-Authenticate`, CloudKitty's policy rules (admin configures,
 * member and reader may not, everyone quotes), audit columns holding real user ids, a policy file
 * override, a Keystone that hangs or is gone, and the real client with password authentication.
 * Issue 15: the audit trail of writes made with real tokens (user, project, before/after, the log
 * line without secrets).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultModuleNames } from '../../src/rating/registry.js';
import { runCloudkittyCli, stopCloudkittyCli } from '../helpers/cloudkitty-cli.js';
import { callServer, freePort, startServerProcess, type Answer, type ServerProcess } from '../helpers/server.js';
import { keystoneModeEnvironment, passwordClientArguments, startKeystone, type Keystone, type KeystoneUser } from './keystone.js';

const H = '/v1/rating/module_config/hashmap';
const P = '/v1/rating/module_config/pyscripts';
/** Short-lived tokens, so that one can be seen to expire. */
const TOKEN_LIFETIME_S = 20;

/** One request, with the token when given. */
function call(server: ServerProcess, method: string, path: string, token?: string, body?: unknown): Promise<Answer> {
  return callServer(server, method, path, body, { headers: token ? { 'x-auth-token': token } : {}, timeoutMs: 30_000 });
}

function expectFault(answer: Answer, status: number, message: string): void {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: { faultcode: status >= 500 ? 'Server' : 'Client', faultstring: message, debuginfo: null },
  });
}

describe('Keystone mode against a real Keystone', () => {
  let directory: string;
  let keystone: Keystone;
  let server: ServerProcess;
  const tokens = {} as Record<KeystoneUser, string>;
  const extraServers: ServerProcess[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-keystone-mode-'));
    const port = await freePort();
    keystone = await startKeystone({ tokenExpiration: TOKEN_LIFETIME_S, ratingEndpointUrl: `http://127.0.0.1:${port}` });
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, keystoneModeEnvironment(keystone, { TARIFF_PORT: String(port) }));
  }, 900_000);

  // Tokens live TOKEN_LIFETIME_S: every test logs in afresh.
  beforeEach(async () => {
    for (const user of ['ADMIN', 'MEMBER', 'READER'] as const) tokens[user] = await keystone.token(user);
  });

  afterAll(async () => {
    await stopCloudkittyCli();
    for (const extra of extraServers) await extra.stop();
    await server?.stop();
    await keystone?.release();
    rmSync(directory, { recursive: true, force: true });
  });

  it('leaves version discovery and the health check open', async () => {
    for (const path of ['/', '/v1', '/v2', '/healthcheck']) expect((await call(server, 'GET', path)).status, path).toBe(200);
  });

  it('answers a missing, malformed or unknown token with 401 and the Keystone challenge', async () => {
    const unknown = `gAAAAAB${'x'.repeat(150)}`;
    for (const token of [undefined, 'not a token!', unknown]) {
      const answer = await call(server, 'GET', `${H}/services`, token);
      expectFault(answer, 401, 'The request you have made requires authentication.');
      expect(answer.headers.get('www-authenticate')).toBe(`Keystone uri="${keystone.env.KEYSTONE_URL}"`);
    }
    expect((await call(server, 'GET', '/v1/rating/modules', 'not a token!')).status).toBe(401);
  });

  it('lets the admin configure hashmap and pyscripts, recording the real user id', async () => {
    const admin = tokens.ADMIN;
    const service = await call(server, 'POST', `${H}/services`, admin, { name: 'compute' });
    expect(service.status, JSON.stringify(service.body)).toBe(201);
    const field = await call(server, 'POST', `${H}/fields`, admin, { service_id: service.body.service_id, name: 'flavor' });
    expect(field.status).toBe(201);
    const mapping = await call(server, 'POST', `${H}/mappings`, admin, { field_id: field.body.field_id, value: 'm1.small', cost: '0.5' });
    expect(mapping.status).toBe(201);
    expect(mapping.body.created_by).toBe(keystone.env.KEYSTONE_ADMIN_USER_ID);
    const updated = await call(server, 'PUT', `${H}/mappings/${mapping.body.mapping_id}`, admin, { end: '2099-01-01T00:00:00' });
    expect(updated.body.updated_by, JSON.stringify(updated.body)).toBe(keystone.env.KEYSTONE_ADMIN_USER_ID);
    const script = await call(server, 'POST', `${P}/scripts`, admin, { name: 'noop', data: 'a = 1\n' });
    expect(script.status).toBe(201);
    expect(script.body.created_by).toBe(keystone.env.KEYSTONE_ADMIN_USER_ID);
    expect((await call(server, 'DELETE', `${P}/scripts/${script.body.script_id}`, admin)).status).toBe(204);
    expect((await call(server, 'PUT', '/v1/rating/modules/hashmap', admin, { enabled: true })).status).toBe(200);
  });

  it('refuses module configuration to members and readers with 403', async () => {
    for (const user of ['MEMBER', 'READER'] as const) {
      const token = tokens[user];
      expectFault(
        await call(server, 'POST', `${H}/services`, token, { name: `by-${user}` }),
        403,
        "Policy doesn't allow rating:module_config to be performed.",
      );
      expectFault(await call(server, 'GET', `${H}/services`, token), 403, "Policy doesn't allow rating:module_config to be performed.");
      expectFault(
        await call(server, 'POST', `${P}/scripts`, token, { name: 'x', data: '' }),
        403,
        "Policy doesn't allow rating:module_config to be performed.",
      );
      expectFault(
        await call(server, 'PUT', '/v1/rating/modules/hashmap', token, { enabled: false }),
        403,
        "Policy doesn't allow rating:update_module to be performed.",
      );
      expectFault(await call(server, 'GET', '/v1/rating/modules', token), 403, "Policy doesn't allow rating:list_modules to be performed.");
      expectFault(
        await call(server, 'PUT', '/v2/rating/modules/hashmap', token, { enabled: false }),
        403,
        "Policy doesn't allow v2_rating:update_module to be performed.",
      );
    }
  });

  it('lets everyone with a token quote', async () => {
    for (const user of ['ADMIN', 'MEMBER', 'READER'] as const) {
      const quote = await call(server, 'POST', '/v1/rating/quote', tokens[user], {
        resources: [{ service: 'compute', volume: '2', desc: { flavor: 'm1.small' } }],
      });
      expect({ user, status: quote.status, body: quote.body }).toEqual({ user, status: 200, body: 1 });
      const v2 = await call(server, 'POST', '/v2/rating/quote', tokens[user], {
        usage: { compute: [{ vol: { qty: '1' }, metadata: { flavor: 'm1.small' } }] },
      });
      expect(v2.status).toBe(200);
      expect(v2.body.total).toBe('0.5');
    }
  });

  it('refuses a revoked token', async () => {
    const token = await keystone.token('MEMBER');
    await keystone.revoke(token);
    expectFault(await call(server, 'POST', '/v1/rating/quote', token, { resources: [] }), 401, 'The request you have made requires authentication.');
  });

  it('follows a policy file that lets members configure', async () => {
    const policyFile = join(directory, 'policy.yaml');
    writeFileSync(policyFile, '"rating:module_config": "role:admin or role:member"\n');
    const extra = await startServerProcess(`sqlite:${join(directory, 'policy.db')}`, keystoneModeEnvironment(keystone, { TARIFF_POLICY_FILE: policyFile }));
    extraServers.push(extra);
    const byMember = await call(extra, 'POST', `${P}/scripts`, tokens.MEMBER, { name: 'by-member', data: '' });
    expect(byMember.status).toBe(201);
    expect(byMember.body.created_by).toBe(keystone.env.KEYSTONE_MEMBER_USER_ID);
    expect((await call(extra, 'POST', `${H}/services`, tokens.READER, { name: 'by-reader' })).status).toBe(403);
  });

  it('keeps cached tokens working while Keystone hangs, and fails new ones with 503 within the timeout', async () => {
    const fresh = await keystone.token('READER');
    const quote = { resources: [{ service: 'compute', volume: '1', desc: { flavor: 'm1.small' } }] };
    expect((await call(server, 'POST', '/v1/rating/quote', tokens.MEMBER, quote)).status).toBe(200);
    keystone.pause();
    try {
      const cached = await call(server, 'POST', '/v1/rating/quote', tokens.MEMBER, quote);
      expect(cached.status).toBe(200);
      expect(cached.milliseconds).toBeLessThan(500);
      const unknown = await call(server, 'POST', '/v1/rating/quote', fresh, quote);
      expect(unknown.status).toBe(503);
      expect(unknown.body.faultstring).toMatch(/^The identity service is unavailable: .*no answer within 2000 ms/);
      expect(unknown.milliseconds).toBeLessThan(3500);
    } finally {
      keystone.resume();
    }
    expect((await call(server, 'POST', '/v1/rating/quote', fresh, quote)).status).toBe(200);
  });

  it('answers 503 when Keystone cannot be reached at all', async () => {
    const closedPort = await freePort();
    const extra = await startServerProcess(
      `sqlite:${join(directory, 'unreachable.db')}`,
      keystoneModeEnvironment(keystone, { TARIFF_KEYSTONE_AUTH_URL: `http://127.0.0.1:${closedPort}/v3` }),
    );
    extraServers.push(extra);
    const answer = await call(extra, 'GET', `${H}/services`, tokens.ADMIN);
    expect(answer.status).toBe(503);
    expect(answer.body.faultstring).toMatch(/^The identity service is unavailable/);
    expect((await call(extra, 'GET', '/healthcheck')).status).toBe(200);
  });

  it('lets the real client work end to end with password authentication', async () => {
    const env = keystone.env;
    const client = async (user: KeystoneUser, project: string, ...args: string[]) => {
      const run = await runCloudkittyCli([...passwordClientArguments(env, user, project), ...args], { env: process.env });
      if (run.code !== 0) throw Object.assign(new Error(`cloudkitty ${args.join(' ')} exited with ${run.code}`), { stderr: run.stderr });
      return run;
    };
    const created = JSON.parse((await client('ADMIN', env.KEYSTONE_ADMIN_PROJECT, 'hashmap', 'service', 'create', 'volume', '-f', 'json')).stdout);
    expect(created).toEqual([expect.objectContaining({ Name: 'volume' })]);
    const listed = JSON.parse((await client('ADMIN', env.KEYSTONE_ADMIN_PROJECT, 'hashmap', 'service', 'list', '-f', 'json')).stdout);
    expect(listed.map((service: any) => service.Name).sort()).toEqual(['compute', 'volume']);
    const modules = JSON.parse((await client('ADMIN', env.KEYSTONE_ADMIN_PROJECT, 'module', 'list', '-f', 'json')).stdout);
    expect(modules.map((module: any) => module.Module).sort()).toEqual(defaultModuleNames());
    const refused = await client('MEMBER', env.KEYSTONE_DEMO_PROJECT, 'hashmap', 'service', 'create', 'network').then(
      () => 'accepted',
      (error: any) => String(error.stderr),
    );
    expect(refused).toContain("Policy doesn't allow rating:module_config to be performed.");
  });

  it('records each admin write once in the audit trail with the Keystone user and project, nothing for refused writes, and logs it without secrets', async () => {
    // A server of its own at info level, on a database of its own: its trail and log are this test's alone.
    const audited = await startServerProcess(`sqlite:${join(directory, 'audit.db')}`, keystoneModeEnvironment(keystone, { TARIFF_LOG_LEVEL: 'info' }));
    extraServers.push(audited);
    const { ADMIN: admin, MEMBER: member, READER: reader } = tokens;
    const adminUser = keystone.env.KEYSTONE_ADMIN_USER_ID;
    const adminProject = keystone.env.KEYSTONE_ADMIN_PROJECT_ID;
    const CHANGES = '/v2/rating/changes';
    const write = async (token: string, method: string, path: string, body: unknown, status: number) => {
      const answer = await call(audited, method, path, token, body);
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
      return answer;
    };
    const trail = async () => {
      const answer = await call(audited, 'GET', `${CHANGES}?limit=1000`, admin);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.total).toBe(answer.body.changes.length);
      return answer.body.changes as any[];
    };
    const read = async (path: string) => (await write(admin, 'GET', path, undefined, 200)).body;

    // The admin's writes; an X-User-Id beside the token does not change who acts.
    const service = await write(admin, 'POST', `${H}/services`, { name: 'audited' }, 201);
    const created = await write(admin, 'POST', `${H}/thresholds`, { service_id: service.body.service_id, level: '10', cost: '2' }, 201);
    const thresholdId = created.body.threshold_id;
    const path = `${H}/thresholds/${thresholdId}`;
    expect(await read(path)).toEqual(created.body);
    const updated = await callServer(audited, 'PUT', path, { cost: '3' }, { headers: { 'x-auth-token': admin, 'x-user-id': 'someone-else' } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.cost).not.toBe(created.body.cost);
    expect(await read(path)).toEqual(updated.body);
    const deleted = await write(admin, 'DELETE', path, undefined, 204);
    const group = await write(admin, 'POST', `${H}/groups`, { name: 'audited-group' }, 201);
    const groupDeleted = await write(admin, 'DELETE', `${H}/groups/${group.body.group_id}`, undefined, 204);

    const expected = [
      {
        answer: service,
        route: `POST ${H}/services`,
        kind: 'service',
        object_id: service.body.service_id,
        action: 'create',
        before: null,
        after: service.body,
      },
      { answer: created, route: `POST ${H}/thresholds`, kind: 'threshold', object_id: thresholdId, action: 'create', before: null, after: created.body },
      {
        answer: updated,
        route: `PUT ${H}/thresholds/:threshold_id`,
        kind: 'threshold',
        object_id: thresholdId,
        action: 'update',
        before: created.body,
        after: updated.body,
      },
      // api.md §9: a delete records what it removed, as its GET answered it.
      {
        answer: deleted,
        route: `DELETE ${H}/thresholds/:threshold_id`,
        kind: 'threshold',
        object_id: thresholdId,
        action: 'delete',
        before: updated.body,
        after: null,
      },
      { answer: group, route: `POST ${H}/groups`, kind: 'group', object_id: group.body.group_id, action: 'create', before: null, after: group.body },
      {
        answer: groupDeleted,
        route: `DELETE ${H}/groups/:group_id`,
        kind: 'group',
        object_id: group.body.group_id,
        action: 'delete',
        before: { group_id: group.body.group_id, name: 'audited-group' },
        after: null,
      },
    ].map(({ answer, ...change }) => ({
      ...change,
      // A v1 write is no price-list apply: no document name, no revision (api.md §9).
      name: null,
      revision: null,
      user_id: adminUser,
      project_id: adminProject,
      request_id: answer.headers.get('x-openstack-request-id'),
    }));
    const changes = await trail();
    expect(changes.map(({ change_id: _id, at: _at, ...change }) => change)).toEqual([...expected].reverse());
    for (const change of expected) expect(change.request_id).toMatch(/^req-[0-9a-f-]{36}$/);

    // Refused writes record nothing: the member's (403, policy) and the admin's invalid ones (400).
    const refused = "Policy doesn't allow rating:module_config to be performed.";
    expectFault(await call(audited, 'POST', `${H}/services`, member, { name: 'by-member' }), 403, refused);
    expectFault(await call(audited, 'POST', `${H}/groups`, member, { name: 'by-member' }), 403, refused);
    expectFault(await call(audited, 'DELETE', `${H}/services/${service.body.service_id}`, member), 403, refused);
    await write(admin, 'POST', `${H}/services`, { name: '' }, 400);
    await write(admin, 'POST', `${H}/thresholds`, { service_id: service.body.service_id, level: '5', cost: 'lots' }, 400);
    await write(admin, 'PUT', '/v2/rating/modules/noop', { priority: -1 }, 400);
    expect(await trail()).toEqual(changes);

    // The trail itself is configuration: refused to the member and the reader, open to the admin.
    for (const token of [member, reader]) expectFault(await call(audited, 'GET', CHANGES, token), 403, refused);
    expect((await call(audited, 'GET', `${CHANGES}?kind=group`, admin)).body.total).toBe(2);

    // One "configuration change" line per change, at info, naming the same user; no token or
    // password anywhere. The lines come through a pipe: wait for them.
    const changeLines = () =>
      audited
        .output()
        .split('\n')
        .slice(0, -1) // the last is not a whole line yet
        .filter((line) => line.includes('"configuration change"'))
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg === 'configuration change');
    for (let waited = 0; changeLines().length < expected.length && waited < 5000; waited += 50) await sleep(50);
    const entries = changeLines();
    const log = audited.output();
    expect(entries.map((entry) => ({ level: entry.level, reqId: entry.reqId }))).toEqual(expected.map((change) => ({ level: 30, reqId: change.request_id })));
    for (const [index, entry] of entries.entries()) {
      const { at, ...change } = entry.change;
      expect(change).toEqual({ ...expected[index], name: undefined }); // the log line leaves a null name out
      expect(at.slice(0, 19)).toBe([...changes].reverse()[index].at.slice(0, 19));
    }
    for (const secret of [admin, member, reader, keystone.env.KEYSTONE_TARIFF_PASSWORD, keystone.env.KEYSTONE_ADMIN_PASSWORD]) {
      expect(log.includes(secret), `a secret in the log: ${secret.slice(0, 12)}…`).toBe(false);
    }
    // No other token either (Tariff's own service token): Keystone's fernet tokens start so.
    expect(log).not.toMatch(/gAAAAA/);
  });

  it('refuses an expired token', async () => {
    const token = await keystone.token('READER');
    const quote = { resources: [] };
    expect((await call(server, 'POST', '/v1/rating/quote', token, quote)).status).toBe(200);
    await sleep((TOKEN_LIFETIME_S + 1) * 1000);
    expectFault(await call(server, 'POST', '/v1/rating/quote', token, quote), 401, 'The request you have made requires authentication.');
  }, 60_000);
});
