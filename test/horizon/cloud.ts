/**
 * The cloud behind the Horizon harness: test/cloud/ (the real Keystone, CloudKitty 17 and Tariff,
 * both in Keystone mode, the catalog's `rating` endpoint in two regions), and what the walk needs
 * on top: which endpoint a side is, and the admin's API calls to check what Horizon did.
 */
import { passwordLogin } from '../keystone/keystone.js';
import { startCloud as startDropInCloud, cloudUnavailable, type Cloud as DropInCloud } from '../cloud/cloud.js';

/** Which server a region's `rating` endpoint is. */
export type Side = 'tariff' | 'cloudkitty';

/** Why the cloud cannot run here, or undefined. */
export function cloudMissing(): string | undefined {
  return cloudUnavailable() ?? undefined;
}

/** The running cloud, with the admin's calls. */
export interface Cloud {
  /** env.sh's values (test/cloud/README.md). */
  env: Record<string, string>;
  /** The region of a side's `rating` endpoint. */
  region(side: Side): string;
  /** The `rating` endpoint of a side. */
  endpoint(side: Side): string;
  /** One JSON call to a side's rating API with an admin token (project admin): status and parsed body. */
  call(side: Side, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** A project-scoped token of the admin (project admin). */
async function adminToken(env: Record<string, string>): Promise<string> {
  return (await passwordLogin(env, 'ADMIN')).token;
}

/** Starts test/cloud/ in `directory` (Tariff logging at debug). */
export async function startCloud(directory: string): Promise<Cloud> {
  const cloud: DropInCloud = await startDropInCloud({ directory, environment: { TARIFF_LOG_LEVEL: 'debug' } });
  let token: string;
  try {
    token = await adminToken(cloud.env);
  } catch (error) {
    await cloud.stop();
    throw error;
  }
  const endpoint = (side: Side) => (side === 'tariff' ? cloud.tariffUrl : cloud.cloudkittyUrl);
  return {
    env: cloud.env,
    region: (side) => (side === 'tariff' ? cloud.tariffRegion : cloud.cloudkittyRegion),
    endpoint,
    async call(side, method, path, body) {
      const response = await fetch(`${endpoint(side)}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-auth-token': token },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: response.status, body: parsed };
    },
    stop: () => cloud.stop(),
  };
}
