/**
 * What CloudKitty master's policy decides, written out by hand from its code
 * (`cloudkitty/common/policies/**`) and oslo.policy's enforcement (`_handle_deprecated_rule`,
 * `_enforce_scope`, the generic and role checks), without Tariff's rule parser: the oracle the
 * enforcer's decisions are held to, for every rule, both `enforce_new_defaults` and both
 * `enforce_scope`.
 */
import type { PolicyCredentials } from '../../src/auth/policy/enforcer.js';

/** oslo.policy's two switches. */
export interface PolicySwitches {
  enforceNewDefaults: boolean;
  enforceScope: boolean;
}

type Target = Readonly<Record<string, unknown>>;
type Decide = (credentials: PolicyCredentials, target: Target, switches: PolicySwitches) => boolean;

const hasRole = (credentials: PolicyCredentials, role: string) => credentials.roles.some((held) => held.toLowerCase() === role);
/** `key:True` for a credential holding a boolean (Python's `str(True)`). */
const isTrue = (value: unknown) => value === true || value === 'True';
/** `project_id:%(project_id)s`: false without the target key (oslo's KeyError), else Python `str()` equality. */
const ownsTarget = (credentials: PolicyCredentials, target: Target) =>
  Object.hasOwn(target, 'project_id') && pythonText(credentials.project_id) === pythonText(target.project_id);
const pythonText = (value: unknown) => (value === null || value === undefined ? 'None' : String(value));

const admin: Decide = (credentials) => hasRole(credentials, 'admin');
/** CloudKitty's `admin_or_owner` (17's rule, 22's deprecated one). */
const adminOrOwner: Decide = (credentials, target) =>
  isTrue(credentials.is_admin) || (hasRole(credentials, 'admin') && isTrue(credentials.is_admin_project)) || ownsTarget(credentials, target);
/** A 22.0.0 base rule: its new check, OR'd with `admin_or_owner` when new defaults are not enforced. */
const withDeprecated =
  (check: Decide): Decide =>
  (credentials, target, switches) =>
    check(credentials, target, switches) || (!switches.enforceNewDefaults && adminOrOwner(credentials, target, switches));
const projectMemberApi = withDeprecated((credentials, target) => hasRole(credentials, 'member') && ownsTarget(credentials, target));
const projectReaderApi = withDeprecated((credentials, target) => hasRole(credentials, 'reader') && ownsTarget(credentials, target));
const projectMemberOrAdmin = withDeprecated(
  (credentials, target, switches) => projectMemberApi(credentials, target, switches) || admin(credentials, target, switches),
);
const projectReaderOrAdmin = withDeprecated(
  (credentials, target, switches) => projectReaderApi(credentials, target, switches) || admin(credentials, target, switches),
);
const anyone: Decide = () => true;

/** oslo.policy's token scope: system, else domain, else project. */
function scopeOf(credentials: PolicyCredentials): string {
  if (credentials.system_scope) return 'system';
  if (credentials.domain_id) return 'domain';
  return 'project';
}

/** A documented API rule: `scope_types=['project']`, refused to other scopes under `enforce_scope`. */
const projectScoped =
  (check: Decide): Decide =>
  (credentials, target, switches) =>
    !(switches.enforceScope && scopeOf(credentials) !== 'project') && check(credentials, target, switches);

/** Every rule CloudKitty master registers, with its decision. */
export const EXPECTED_DECISIONS: Readonly<Record<string, Decide>> = {
  context_is_admin: admin,
  admin_or_owner: adminOrOwner,
  default: anyone,
  project_member_api: projectMemberApi,
  project_reader_api: projectReaderApi,
  project_member_or_admin: projectMemberOrAdmin,
  project_reader_or_admin: projectReaderOrAdmin,
  'collector:list_mappings': projectScoped(admin),
  'collector:get_mapping': projectScoped(admin),
  'collector:manage_mapping': projectScoped(admin),
  'collector:get_state': projectScoped(admin),
  'collector:update_state': projectScoped(admin),
  'info:list_services_info': projectScoped(anyone),
  'info:get_service_info': projectScoped(anyone),
  'info:list_metrics_info': projectScoped(anyone),
  'info:get_metric_info': projectScoped(anyone),
  'info:get_config': projectScoped(anyone),
  'rating:list_modules': projectScoped(admin),
  'rating:get_module': projectScoped(admin),
  'rating:update_module': projectScoped(admin),
  'rating:quote': projectScoped(anyone),
  'rating:module_config': projectScoped(admin),
  'report:list_tenants': projectScoped(admin),
  'report:get_summary': projectScoped(projectReaderOrAdmin),
  'report:get_total': projectScoped(projectReaderOrAdmin),
  'storage:list_data_frames': projectScoped(projectReaderOrAdmin),
  'dataframes:add': projectScoped(admin),
  'dataframes:get': projectScoped(projectReaderOrAdmin),
  'v2_rating:list_modules': projectScoped(admin),
  'v2_rating:get_module': projectScoped(admin),
  'v2_rating:update_module': projectScoped(admin),
  'scope:get_state': projectScoped(admin),
  'scope:reset_state': projectScoped(admin),
  'scope:patch_state': projectScoped(admin),
  'scope:post_state': projectScoped(admin),
  'summary:get_summary': projectScoped(projectReaderOrAdmin),
  'schedule:task_reprocesses': projectScoped(admin),
  'schedule:get_task_reprocesses': projectScoped(admin),
};

/** The four settings of the two switches. */
export const ALL_SWITCHES: readonly PolicySwitches[] = [true, false].flatMap((enforceNewDefaults) =>
  [true, false].map((enforceScope) => ({ enforceNewDefaults, enforceScope })),
);
