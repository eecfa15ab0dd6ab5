/**
 * CloudKitty's default policy rules for the rating API, as registered in code by CloudKitty 17.0.0
 * (Debian bookworm): `cloudkitty/common/policies/base.py`, `v1/rating.py` and `v2/rating.py`.
 *
 * The enforcer applies CloudKitty 22+'s rules (defaults-secure-rbac.ts), which keep every check
 * string below; this table stays as the reference of what CloudKitty 17 decided (the tests hold the
 * enforcer to it under `TARIFF_POLICY_ENFORCE_NEW_DEFAULTS=false`) and of the rule names the rating
 * routes use.
 *
 * CloudKitty compat, differences with later releases (none changes a rating rule's check string):
 * - 21.0.0 added `v2_rating:update_module` (`role:admin`) with the `PUT /v2/rating/modules/{id}`
 *   endpoint; 17 had neither. Tariff serves that endpoint, so the rule is included here.
 * - 22.0.0 deprecated `admin_or_owner` and added `project_member_api`, `project_reader_api`,
 *   `project_member_or_admin` and `project_reader_or_admin`; it also gave every rating rule
 *   `scope_types=['project']` (defaults-secure-rbac.ts).
 */

/** An API operation a rule guards, as oslo.policy's `DocumentedRuleDefault.operations` lists it. */
export interface PolicyOperation {
  /** HTTP method, or `LIST` (CloudKitty's word for a collection GET). */
  method: string;
  /** Path template, e.g. `/v1/rating/modules/{module_id}`. */
  path: string;
}

/** oslo.policy compat: `DeprecatedRule` — the check a rule had before, still honoured under `enforce_new_defaults = False`. */
export interface DeprecatedPolicyRule {
  name: string;
  check: string;
  /** Free text; line breaks are re-wrapped by the sample. */
  reason: string;
  /** Release, e.g. `22.0.0`. */
  since: string;
}

/**
 * One default rule: its name, oslo.policy check string and what it guards. oslo.policy compat:
 * `RuleDefault` / `DocumentedRuleDefault`; the optional fields are those the sample prints and the
 * enforcer applies (`scopeTypes` with `enforce_scope`, `deprecatedRule` without `enforce_new_defaults`).
 */
export interface PolicyRuleDefault {
  name: string;
  check: string;
  /** Empty when the rule has none (oslo: `None`). */
  description: string;
  operations?: readonly PolicyOperation[];
  /** Token scopes the rule is meant for (`project`, `domain`, `system`); absent: any. */
  scopeTypes?: readonly string[];
  deprecatedRule?: DeprecatedPolicyRule;
  /** oslo.policy compat: `deprecated_for_removal` with its reason and release. */
  deprecatedForRemoval?: { reason: string; since: string };
}

/** The admin role. CloudKitty compat: `base.ROLE_ADMIN`. */
const ADMIN = 'role:admin';
/** Anyone holding a valid token. CloudKitty compat: `base.UNPROTECTED`. */
const UNPROTECTED = '';

/** CloudKitty compat: the defaults registered by CloudKitty 17.0.0 (plus `v2_rating:update_module`, see above). */
export const CLOUDKITTY_DEFAULT_RULES: readonly PolicyRuleDefault[] = Object.freeze(
  [
    // base.py
    { name: 'context_is_admin', check: ADMIN, description: 'Decides whether a request context is an admin context.' },
    {
      name: 'admin_or_owner',
      check: 'is_admin:True or (role:admin and is_admin_project:True) or project_id:%(project_id)s',
      description: 'An admin, or a member of the project named by the target.',
    },
    { name: 'default', check: UNPROTECTED, description: "oslo.policy's fallback rule; unprotected." },
    // v1/rating.py
    { name: 'rating:list_modules', check: ADMIN, description: 'List the rating modules (GET /v1/rating/modules).' },
    { name: 'rating:get_module', check: ADMIN, description: 'Get one rating module (GET /v1/rating/modules/{module_id}).' },
    { name: 'rating:update_module', check: ADMIN, description: "Change a module's state and priority (PUT /v1/rating/modules/{module_id})." },
    { name: 'rating:quote', check: UNPROTECTED, description: 'Get an instant quote for resource descriptions (POST /v1/rating/quote).' },
    {
      name: 'rating:module_config',
      check: ADMIN,
      description: 'Reload the rating modules (GET /v1/rating/reload_modules) and every module_config/<module> route (hashmap, pyscripts).',
    },
    // v2/rating.py
    { name: 'v2_rating:list_modules', check: ADMIN, description: 'List the rating modules (GET /v2/rating/modules).' },
    { name: 'v2_rating:get_module', check: ADMIN, description: 'Get one rating module (GET /v2/rating/modules/{module_id}).' },
    {
      name: 'v2_rating:update_module',
      check: ADMIN,
      description: "Change a module's state and priority (PUT /v2/rating/modules/{module_id}); CloudKitty 21+.",
    },
  ].map((rule) => Object.freeze(rule)),
);
