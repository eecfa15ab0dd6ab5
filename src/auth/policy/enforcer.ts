/**
 * The policy enforcer of Keystone mode: CloudKitty's default rules (22+'s secure-RBAC ones, with
 * their deprecated checks and scope types applied as `enforce_new_defaults` and `enforce_scope`
 * say), overridden by an optional oslo.policy file (YAML or JSON), evaluated with the rule
 * language of `language.ts`.
 */

import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ConfigurationError } from '../../config.js';
import type { PolicyRuleDefault } from './defaults.js';
import { SECURE_RBAC_DEFAULT_RULES } from './defaults-secure-rbac.js';
import { describeCheck, evaluateCheck, parseRule, type LegacyListRule, type PolicyCheck, type PolicyValues } from './language.js';

/**
 * A caller's credentials, as oslo.context's `to_policy_values()` gives them from keystonemiddleware's
 * headers. Unset values may be null. Extra keys are allowed and reachable by generic checks.
 */
export interface PolicyCredentials {
  user_id?: string | null;
  user_domain_id?: string | null;
  project_id?: string | null;
  project_domain_id?: string | null;
  domain_id?: string | null;
  /** Role names; `role:` checks compare them case-insensitively. */
  roles: readonly string[];
  /** `all` for a system-scoped token. oslo.policy compat: also exposed to checks as `system`. */
  system_scope?: string | null;
  /** oslo.context compat: true when keystonemiddleware sends no `X-Is-Admin-Project` header. */
  is_admin_project?: boolean;
  /** Not in oslo.context's policy values (so `is_admin:True` never matches in CloudKitty); give it only to mean it. */
  is_admin?: boolean;
  [key: string]: unknown;
}

/** Where the rules come from, and how oslo.policy's two switches are set. */
export interface PolicyEnforcerOptions {
  /** A policy file (YAML or JSON) whose rules override the defaults by name; absent: defaults only. */
  policyFile?: string;
  /** The default rules; CloudKitty 22+'s (defaults-secure-rbac.ts) when absent. */
  defaults?: readonly PolicyRuleDefault[];
  /**
   * oslo.policy compat: `[oslo_policy] enforce_new_defaults` (`TARIFF_POLICY_ENFORCE_NEW_DEFAULTS`).
   * False: a default with a deprecated rule checks `new or deprecated`, unless the policy file
   * names the rule. Default true (oslo.policy 4.4+).
   */
  enforceNewDefaults?: boolean;
  /**
   * oslo.policy compat: `[oslo_policy] enforce_scope` (`TARIFF_POLICY_ENFORCE_SCOPE`). True: a
   * token whose scope (system, domain, else project) is not among the enforced default's
   * `scopeTypes` is refused whatever the check says. Default true (oslo.policy 4.4+).
   */
  enforceScope?: boolean;
  /**
   * Told when a token's scope is not among a rule's scope types but `enforceScope` is false (the
   * rule is then checked as usual). oslo.policy compat: it logs "Policy … failed scope check", which
   * names the callers that `enforce_scope = true` would refuse.
   */
  onScopeMismatch?: (mismatch: { rule: string; tokenScope: string; scopeTypes: readonly string[] }) => void;
}

/** oslo.policy compat: `Enforcer._enforce_scope`'s view of a token: system, else domain, else project. */
export function tokenScope(credentials: PolicyCredentials): 'system' | 'domain' | 'project' {
  if (credentials.system_scope || credentials.system) return 'system';
  if (credentials.domain_id) return 'domain';
  return 'project';
}

/**
 * Decides whether a caller may perform an action.
 *
 * oslo.policy compat, one deliberate difference: a `rule:` reference to an undefined rule denies,
 * where oslo.policy falls back to the `default` rule (unprotected in CloudKitty, so a typo there
 * grants access). Such references are listed in {@link PolicyEnforcer.warnings}.
 * fix: a scope refused under `enforceScope` is a plain denial (403 on the routes); CloudKitty lets
 * oslo.policy's `InvalidScope` escape its 403 handlers.
 */
export class PolicyEnforcer {
  private readonly rules = new Map<string, PolicyCheck>();
  /** Registered defaults' scope types, by rule name (oslo: checked even when a file overrides the rule). */
  private readonly scopeTypes = new Map<string, readonly string[]>();
  private readonly enforceScope: boolean;
  private readonly onScopeMismatch: PolicyEnforcerOptions['onScopeMismatch'];
  /** Problems that do not stop loading (references to undefined rules, deprecated rules in use), for the caller to log. */
  readonly warnings: string[] = [];

  /**
   * @throws ConfigurationError when the policy file cannot be read or parsed, is not a mapping of
   *   rule names to rules, a rule fails to parse, or rules reference each other in a cycle. The
   *   message names the file and the rule.
   * @throws Error when a default rule does not parse (a programming error).
   */
  constructor(options: PolicyEnforcerOptions = {}) {
    const enforceNewDefaults = options.enforceNewDefaults ?? true;
    this.enforceScope = options.enforceScope ?? true;
    this.onScopeMismatch = options.onScopeMismatch;
    const fileRules = options.policyFile === undefined ? new Map<string, PolicyCheck>() : loadFile(options.policyFile);
    const combined: string[] = [];
    for (const rule of options.defaults ?? SECURE_RBAC_DEFAULT_RULES) {
      const check = parseDefault(rule.name, rule.check);
      if (rule.scopeTypes !== undefined) this.scopeTypes.set(rule.name, rule.scopeTypes);
      if (rule.deprecatedForRemoval !== undefined && fileRules.has(rule.name)) {
        this.warnings.push(
          `policy rule '${rule.name}' (overridden by the policy file) was deprecated for removal in ${rule.deprecatedForRemoval.since}; its value may be ignored in the future`,
        );
      }
      const deprecated = rule.deprecatedRule;
      if (deprecated === undefined) {
        this.rules.set(rule.name, check);
        continue;
      }
      // oslo.policy compat: `_handle_deprecated_rule`. A file overriding the old name (and not the
      // new one) keeps its check for the new name, unless it only aliases the new rule.
      const overriddenOld = deprecated.name !== rule.name ? fileRules.get(deprecated.name) : undefined;
      if (overriddenOld !== undefined && !fileRules.has(rule.name) && describeCheck(overriddenOld) !== `rule:${rule.name}`) {
        this.warnings.push(`policy rule '${deprecated.name}' of the policy file is deprecated in favour of '${rule.name}', which takes its check`);
        this.rules.set(rule.name, overriddenOld);
      } else if (!enforceNewDefaults && deprecated.check !== rule.check && !fileRules.has(rule.name)) {
        this.rules.set(rule.name, { kind: 'or', checks: [check, parseDefault(deprecated.name, deprecated.check)] });
        combined.push(rule.name);
      } else {
        this.rules.set(rule.name, check);
      }
    }
    if (combined.length > 0) {
      this.warnings.push(`enforce_new_defaults is false: policy rules ${combined.join(', ')} also allow what their deprecated defaults allowed`);
    }
    for (const [name, check] of fileRules) this.rules.set(name, check);
    this.checkReferences(options.policyFile ?? 'the default rules');
  }

  /**
   * Whether `credentials` may perform `ruleName` on `target` (the values `%(key)s` substitutes,
   * e.g. `{ project_id }`; CloudKitty passes `{}` for every rating rule). Under `enforceScope`, a
   * token of a scope the rule's default is not meant for is refused first.
   *
   * @throws Error when no rule has that name (a programming error; oslo.policy's `authorize`
   *   raises `PolicyNotRegistered`).
   */
  enforce(ruleName: string, target: PolicyValues, credentials: PolicyCredentials): boolean {
    const check = this.rules.get(ruleName);
    if (check === undefined) throw new Error(`no policy rule named '${ruleName}'`);
    const scopes = this.scopeTypes.get(ruleName);
    const scope = tokenScope(credentials);
    if (scopes !== undefined && !scopes.includes(scope)) {
      if (this.enforceScope) return false;
      this.onScopeMismatch?.({ rule: ruleName, tokenScope: scope, scopeTypes: scopes });
    }
    // oslo.policy compat: Enforcer.enforce copies a truthy system_scope to `system`.
    const values: PolicyValues = credentials.system_scope ? { ...credentials, system: credentials.system_scope } : credentials;
    return evaluateCheck(check, target, values, (name) => this.rules.get(name), new Set([ruleName]));
  }

  /** The effective rules, name → check string in oslo.policy's canonical form (for logs and tests). */
  describeRules(): Record<string, string> {
    return Object.fromEntries([...this.rules].map(([name, check]) => [name, describeCheck(check)]));
  }

  /** oslo.policy compat: `check_rules` — undefined references warn; cycles are refused here. */
  private checkReferences(source: string): void {
    const finished = new Set<string>();
    const findCycle = (name: string, path: string[]): string[] | null => {
      if (path.includes(name)) return [...path.slice(path.indexOf(name)), name];
      const check = this.rules.get(name);
      if (check === undefined || finished.has(name)) return null;
      for (const referenced of referencedRules(check)) {
        const cycle = findCycle(referenced, [...path, name]);
        if (cycle) return cycle;
      }
      finished.add(name);
      return null;
    };
    for (const [name, check] of this.rules) {
      for (const referenced of new Set(referencedRules(check))) {
        if (!this.rules.has(referenced)) this.warnings.push(`policy rule '${name}' references undefined rule '${referenced}', which denies`);
      }
      const cycle = findCycle(name, []);
      if (cycle) throw new ConfigurationError(`${source}: policy rules reference each other in a cycle: ${cycle.join(' -> ')}`);
    }
  }
}

/** A default rule's parsed check. @throws Error when it does not parse (a programming error). */
function parseDefault(name: string, source: string): PolicyCheck {
  const parsed = parseRule(source);
  if (parsed.errors.length > 0) throw new Error(`default policy rule '${name}' does not parse: ${parsed.errors.join('; ')}`);
  return parsed.check;
}

/** The rules of a policy file, by name. @throws ConfigurationError naming the file (and rule) when it cannot be read or parsed. */
function loadFile(path: string): Map<string, PolicyCheck> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigurationError(`policy file ${path} cannot be read: ${(error as Error).message}`);
  }
  const rules = new Map<string, PolicyCheck>();
  for (const [name, value] of Object.entries(parsePolicyDocument(path, text))) {
    const parsed = parseRule(ruleSource(path, name, value));
    if (parsed.errors.length > 0) throw new ConfigurationError(`policy file ${path}: rule '${name}' does not parse: ${parsed.errors.join('; ')}`);
    rules.set(name, parsed.check);
  }
  return rules;
}

/**
 * oslo.policy compat: `parse_file_contents` tries JSON, then YAML; an empty file has no rules.
 * A file that looks like JSON (`.json`, or starting with `{`) and parses as neither reports the JSON error.
 */
function parsePolicyDocument(path: string, text: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (jsonError) {
    try {
      document = parseYaml(text);
    } catch (yamlError) {
      const looksLikeJson = path.toLowerCase().endsWith('.json') || text.trimStart().startsWith('{');
      const reason = looksLikeJson ? `invalid JSON: ${(jsonError as Error).message}` : `invalid YAML: ${(yamlError as Error).message}`;
      throw new ConfigurationError(`policy file ${path} does not parse: ${reason}`);
    }
  }
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document)) {
    throw new ConfigurationError(`policy file ${path} must map rule names to rules, got ${Array.isArray(document) ? 'a list' : typeof document}`);
  }
  return document as Record<string, unknown>;
}

/** A file rule's value: a string, the legacy list of lists, or null (oslo.policy compat: always). */
function ruleSource(path: string, name: string, value: unknown): string | LegacyListRule {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  const isCheckList = (item: unknown) => Array.isArray(item) && item.every((check) => typeof check === 'string');
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || isCheckList(item))) return value;
  throw new ConfigurationError(`policy file ${path}: rule '${name}' must be a string or a list of lists of strings, got ${JSON.stringify(value)}`);
}

/** Rule names a check refers to with `rule:`. */
function referencedRules(check: PolicyCheck): string[] {
  if (check.kind === 'rule') return [check.name];
  if (check.kind === 'not') return referencedRules(check.check);
  if (check.kind === 'and' || check.kind === 'or') return check.checks.flatMap(referencedRules);
  return [];
}
