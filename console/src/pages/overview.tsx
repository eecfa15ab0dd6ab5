/**
 * Overview: the rating modules, each enabled or not and its priority (changed through
 * `PUT /v2/rating/modules/{id}`), and how many rules the configuration holds.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';

/** A module as `GET /v2/rating/modules` lists it. */
interface Module {
  module_id: string;
  description: string;
  enabled: boolean;
  hot_config: boolean;
  priority: number;
}

/** Rule counts, each from its list. */
interface Counts {
  services: number;
  groups: number;
  mappings: number;
  thresholds: number;
  scripts: number;
}

const H = '/v1/rating/module_config/hashmap';
const P = '/v1/rating/module_config/pyscripts';

async function loadCounts(): Promise<Counts> {
  const [services, groups, mappings, thresholds, scripts] = await Promise.all([
    call<{ services: unknown[] }>('GET', `${H}/services`),
    call<{ groups: unknown[] }>('GET', `${H}/groups`),
    call<{ mappings: unknown[] }>('GET', `${H}/mappings`),
    call<{ thresholds: unknown[] }>('GET', `${H}/thresholds`),
    call<{ scripts: unknown[] }>('GET', `${P}/scripts?no_data=true`),
  ]);
  return {
    services: services.services.length,
    groups: groups.groups.length,
    mappings: mappings.mappings.length,
    thresholds: thresholds.thresholds.length,
    scripts: scripts.scripts.length,
  };
}

function message(error: unknown): string {
  return error instanceof ApiError || error instanceof Error ? error.message : String(error);
}

/** The overview page. */
export function Overview() {
  const [modules, setModules] = useState<Module[] | undefined>();
  const [counts, setCounts] = useState<Counts | undefined>();
  const [fault, setFault] = useState<string | undefined>();

  const reload = () =>
    call<{ modules: Module[] }>('GET', '/v2/rating/modules').then(
      (answer) => setModules(answer.modules),
      (error: unknown) => setFault(message(error)),
    );

  useEffect(() => {
    void reload();
    loadCounts().then(setCounts, (error: unknown) => setFault(message(error)));
  }, []);

  const update = async (module: Module, change: Partial<Pick<Module, 'enabled' | 'priority'>>) => {
    setFault(undefined);
    try {
      await call('PUT', `/v2/rating/modules/${encodeURIComponent(module.module_id)}`, change);
    } catch (error) {
      setFault(`${module.module_id}: ${message(error)}`);
    }
    await reload();
  };

  return (
    <section>
      <h1>Overview</h1>
      {fault !== undefined && (
        <p role="alert" class="fault">
          {fault}
        </p>
      )}
      <h2>Rating modules</h2>
      <p class="hint">Enabled modules rate in descending priority; ties by name.</p>
      {modules === undefined ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Module</th>
              <th scope="col">Description</th>
              <th scope="col">Enabled</th>
              <th scope="col">Priority</th>
            </tr>
          </thead>
          <tbody>
            {modules.map((module) => (
              <tr key={module.module_id}>
                <th scope="row">{module.module_id}</th>
                <td>{module.description}</td>
                <td>
                  <input
                    type="checkbox"
                    checked={module.enabled}
                    aria-label={`${module.module_id} enabled`}
                    onChange={(event) => void update(module, { enabled: event.currentTarget.checked })}
                  />
                </td>
                <td>
                  <input
                    type="number"
                    min={1}
                    step={1}
                    value={module.priority}
                    aria-label={`${module.module_id} priority`}
                    onChange={(event) => void update(module, { priority: Number(event.currentTarget.value) })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Rules</h2>
      {counts === undefined ? (
        <p aria-busy="true">Counting…</p>
      ) : (
        <dl class="counts">
          {(Object.keys(counts) as (keyof Counts)[]).map((kind) => (
            <div key={kind}>
              <dt>{kind}</dt>
              <dd data-count={kind}>{counts[kind]}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
