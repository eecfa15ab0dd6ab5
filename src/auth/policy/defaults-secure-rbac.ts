/**
 * CloudKitty's default policy rules since 22.0.0 (2025.1, "secure RBAC"), exactly as CloudKitty
 * master registers them (`cloudkitty/common/policies/**`, commit 4595e09, 24.1.0.dev42): every
 * rule of the `cloudkitty` namespace in `list_rules()` order, which is the order
 * `oslopolicy-sample-generator --namespace cloudkitty` prints them in (sample.ts).
 *
 * CloudKitty compat, what 22.0.0 changed against 17 (defaults.ts):
 * - new base rules `project_member_api`, `project_reader_api`, `project_member_or_admin`,
 *   `project_reader_or_admin`, each with `admin_or_owner`'s check as its deprecated rule (under
 *   `enforce_new_defaults = False` oslo.policy ORs the two; enforcer.ts); `admin_or_owner` itself
 *   deprecated for removal;
 * - the reading rules of reports, summaries and dataframes moved from `rule:admin_or_owner` to
 *   `rule:project_reader_or_admin` (routes Tariff forwards to CloudKitty, which enforces them);
 * - every API rule got `scope_types=['project']` (refused to system- and domain-scoped tokens under
 *   `enforce_scope = True`);
 * - the rating rules kept 17's check strings: configuring and the modules stay `role:admin`, the
 *   quote stays open to any project token. So a project reader or member may quote and nothing
 *   else of the rating API, under either default.
 * - upstream quirk kept: the deprecated rule's name is `rule:admin_or_owner` (base.py passes the
 *   reference, not the name), so a policy file overriding `admin_or_owner` does not carry over to
 *   the new rules; only a rule literally named `rule:admin_or_owner` would.
 */

import type { PolicyRuleDefault } from './defaults.js';

/** CloudKitty compat: `base.ROLE_ADMIN`. */
const ADMIN = 'role:admin';
/** CloudKitty compat: `base.UNPROTECTED` (any valid token). */
const UNPROTECTED = '';
/** CloudKitty compat: `base.PROJECT_READER_OR_ADMIN`. */
const PROJECT_READER_OR_ADMIN = 'rule:project_reader_or_admin';
const PROJECT = ['project'] as const;

/** CloudKitty compat: `base.DEPRECATED_REASON`, with its line breaks (the sample re-wraps it). */
const DEPRECATED_REASON =
  '\nCloudKitty API policies are introducing new default roles with scope_type\n' +
  'capabilities. Old policies are deprecated and silently going to be ignored\n' +
  'in future release.\n';
const ADMIN_OR_OWNER_CHECK = 'is_admin:True or (role:admin and is_admin_project:True) or project_id:%(project_id)s';
/** CloudKitty compat: `base.DEPRECATED_ADMIN_OR_OWNER_POLICY`. */
const DEPRECATED_ADMIN_OR_OWNER = Object.freeze({ name: 'rule:admin_or_owner', check: ADMIN_OR_OWNER_CHECK, reason: DEPRECATED_REASON, since: '22.0.0' });

/** One documented API rule: `scope_types=['project']`, one operation unless more are given. */
function api(name: string, check: string, description: string, ...operations: [method: string, path: string][]): PolicyRuleDefault {
  return { name, check, description, operations: operations.map(([method, path]) => ({ method, path })), scopeTypes: PROJECT };
}

/** CloudKitty compat: master's `cloudkitty.common.policies.list_rules()`, in its order. */
export const SECURE_RBAC_DEFAULT_RULES: readonly PolicyRuleDefault[] = Object.freeze(
  [
    // base.py
    { name: 'context_is_admin', check: ADMIN, description: '' },
    { name: 'admin_or_owner', check: ADMIN_OR_OWNER_CHECK, description: '', deprecatedForRemoval: { reason: DEPRECATED_REASON, since: '22.0.0' } },
    { name: 'default', check: UNPROTECTED, description: '' },
    {
      name: 'project_member_api',
      check: 'role:member and project_id:%(project_id)s',
      description: 'Default rule for Project level non admin APIs.',
      deprecatedRule: DEPRECATED_ADMIN_OR_OWNER,
    },
    {
      name: 'project_reader_api',
      check: 'role:reader and project_id:%(project_id)s',
      description: 'Default rule for Project level read only APIs.',
      deprecatedRule: DEPRECATED_ADMIN_OR_OWNER,
    },
    {
      name: 'project_member_or_admin',
      check: 'rule:project_member_api or rule:context_is_admin',
      description: 'Default rule for Project Member or admin APIs.',
      deprecatedRule: DEPRECATED_ADMIN_OR_OWNER,
    },
    {
      name: 'project_reader_or_admin',
      check: 'rule:project_reader_api or rule:context_is_admin',
      description: 'Default rule for Project reader or admin APIs.',
      deprecatedRule: DEPRECATED_ADMIN_OR_OWNER,
    },
    // v1/collector.py (forwarded to CloudKitty)
    api('collector:list_mappings', ADMIN, 'Return the list of every services mapped to a collector.', ['LIST', '/v1/collector/mappings']),
    api('collector:get_mapping', ADMIN, 'Return a service to collector mapping.', ['GET', '/v1/collector/mappings/{service_id}']),
    api(
      'collector:manage_mapping',
      ADMIN,
      'Manage a service to collector mapping.',
      ['POST', '/v1/collector/mappings'],
      ['DELETE', '/v1/collector/mappings/{service_id}'],
    ),
    api('collector:get_state', ADMIN, 'Query the enable state of a collector.', ['GET', '/v1/collector/states/{collector_id}']),
    api('collector:update_state', ADMIN, 'Set the enable state of a collector.', ['PUT', '/v1/collector/states/{collector_id}']),
    // v1/info.py (forwarded)
    api('info:list_services_info', UNPROTECTED, 'List available services information in Cloudkitty.', ['LIST', '/v1/info/services']),
    api('info:get_service_info', UNPROTECTED, 'Get specified service information.', ['GET', '/v1/info/services/{metric_id}']),
    api('info:list_metrics_info', UNPROTECTED, 'List available metrics information in Cloudkitty.', ['LIST', '/v1/info/metrics']),
    api('info:get_metric_info', UNPROTECTED, 'Get specified metric information.', ['GET', '/v1/info/metrics/{metric_id}']),
    api('info:get_config', UNPROTECTED, 'Get current configuration in Cloudkitty.', ['GET', '/v1/info/config']),
    // v1/rating.py (served by Tariff; route-policy.ts says which route each guards)
    api('rating:list_modules', ADMIN, 'Return the list of loaded modules in Cloudkitty.', ['LIST', '/v1/rating/modules']),
    api('rating:get_module', ADMIN, 'Get specified module.', ['GET', '/v1/rating/modules/{module_id}']),
    api('rating:update_module', ADMIN, 'Change the state and priority of a module.', ['PUT', '/v1/rating/modules/{module_id}']),
    api('rating:quote', UNPROTECTED, 'Get an instant quote based on multiple resource descriptions.', ['POST', '/v1/rating/quote']),
    api('rating:module_config', ADMIN, 'Trigger a rating module list reload.', ['GET', '/v1/rating/reload_modules']),
    // v1/report.py, v1/storage.py (forwarded)
    api('report:list_tenants', ADMIN, 'Return the list of rated tenants.', ['GET', '/v1/report/tenants']),
    api('report:get_summary', PROJECT_READER_OR_ADMIN, 'Return the summary to pay for a given period.', ['GET', '/v1/report/summary']),
    api('report:get_total', PROJECT_READER_OR_ADMIN, 'Return the amount to pay for a given period.', ['GET', '/v1/report/total']),
    api('storage:list_data_frames', PROJECT_READER_OR_ADMIN, 'Return a list of rated resources for a time period and a tenant.', [
      'GET',
      '/v1/storage/dataframes',
    ]),
    // v2/dataframes.py (forwarded)
    api('dataframes:add', ADMIN, 'Add one or several DataFrames', ['POST', '/v2/dataframes']),
    api('dataframes:get', PROJECT_READER_OR_ADMIN, 'Get DataFrames', ['GET', '/v2/dataframes']),
    // v2/rating.py (served by Tariff)
    api('v2_rating:list_modules', ADMIN, 'Returns the list of loaded modules in Cloudkitty.', ['GET', '/v2/rating/modules']),
    api('v2_rating:get_module', ADMIN, 'Get specified module.', ['GET', '/v2/rating/modules/{module_id}']),
    api('v2_rating:update_module', ADMIN, 'Change the state and priority of a module.', ['PUT', '/v2/rating/modules/{module_id}']),
    // v2/scope.py, v2/summary.py, v2/tasks.py (forwarded)
    api('scope:get_state', ADMIN, 'Get the state of one or several scopes', ['GET', '/v2/scope']),
    api('scope:reset_state', ADMIN, 'Reset the state of one or several scopes', ['PUT', '/v2/scope']),
    api('scope:patch_state', ADMIN, 'Enables operators to patch a storage scope', ['PATCH', '/v2/scope']),
    api('scope:post_state', ADMIN, 'Enables operators to create a storage scope', ['POST', '/v2/scope']),
    api('summary:get_summary', PROJECT_READER_OR_ADMIN, 'Get a rating summary', ['GET', '/v2/summary']),
    api('schedule:task_reprocesses', ADMIN, 'Schedule a scope for reprocessing', ['POST', '/v2/task/reprocesses']),
    api('schedule:get_task_reprocesses', ADMIN, 'Get reprocessing schedule tasks for scopes.', ['GET', '/v2/task/reprocesses']),
  ].map((rule) => Object.freeze(rule)),
);
