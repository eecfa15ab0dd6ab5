/**
 * The policy enforcer of Keystone mode: CloudKitty's default rules, overridden by an optional
 * oslo.policy file (YAML or JSON), evaluated with the rule language of `language.ts`.
 */

import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ConfigurationError } from '../../config.js';
import { CLOUDKITTY_DEFAULT_RULES, type PolicyRuleDefault } from './defaults.js';
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

/** Where the rules come from. */
export interface PolicyEnforcerOptions {
  /** A policy file (YAML or JSON) whose rules override the defaults by name; absent: defaults only. */
  policyFile?: string;
  /** The default rules; CloudKitty's by default. */
  defaults?: readonly PolicyRuleDefault[];
}

/**
 * Decides whether a caller may perform an action.
 *
 * oslo.policy compat, one deliberate difference: a `rule:` reference to an undefined rule denies,
 * where oslo.policy falls back to the `default` rule (unprotected in CloudKitty, so a typo there
 * grants access). Such references are listed in {@link PolicyEnforcer.warnings}.
 */
export class PolicyEnforcer {
  private readonly rules = new Map<string, PolicyCheck>();
  /** Problems that do not stop loading (references to undefined rules), for the caller to log. */
  readonly warnings: string[] = [];

  /**
   * @throws ConfigurationError when the policy file cannot be read or parsed, is not a mapping of
   *   rule names to rules, a rule fails to parse, or rules reference each other in a cycle. The
   *   message names the file and the rule.
   */
  constructor(options: PolicyEnforcerOptions = {}) {
    for (const rule of options.defaults ?? CLOUDKITTY_DEFAULT_RULES) {
      const parsed = parseRule(rule.check);
      if (parsed.errors.length > 0) throw new Error(`default policy rule '${rule.name}' does not parse: ${parsed.errors.join('; ')}`);
      this.rules.set(rule.name, parsed.check);
    }
    if (options.policyFile !== undefined) this.loadFile(options.policyFile);
    this.checkReferences(options.policyFile ?? 'the default rules');
  }

  /**
   * Whether `credentials` may perform `ruleName` on `target` (the values `%(key)s` substitutes,
   * e.g. `{ project_id }`; CloudKitty passes `{}` for every rating rule).
   *
   * @throws Error when no rule has that name (a programming error; oslo.policy's `authorize`
   *   raises `PolicyNotRegistered`).
   */
  enforce(ruleName: string, target: PolicyValues, credentials: PolicyCredentials): boolean {
    const check = this.rules.get(ruleName);
    if (check === undefined) throw new Error(`no policy rule named '${ruleName}'`);
    // oslo.policy compat: Enforcer.enforce copies a truthy system_scope to `system`.
    const values: PolicyValues = credentials.system_scope ? { ...credentials, system: credentials.system_scope } : credentials;
    return evaluateCheck(check, target, values, (name) => this.rules.get(name), new Set([ruleName]));
  }

  /** The effective rules, name → check string in oslo.policy's canonical form (for logs and tests). */
  describeRules(): Record<string, string> {
    return Object.fromEntries([...this.rules].map(([name, check]) => [name, describeCheck(check)]));
  }

  private loadFile(path: string): void {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ConfigurationError(`policy file ${path} cannot be read: ${(error as Error).message}`);
    }
    const document = parsePolicyDocument(path, text);
    for (const [name, value] of Object.entries(document)) {
      const parsed = parseRule(ruleSource(path, name, value));
      if (parsed.errors.length > 0) throw new ConfigurationError(`policy file ${path}: rule '${name}' does not parse: ${parsed.errors.join('; ')}`);
      this.rules.set(name, parsed.check);
    }
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
