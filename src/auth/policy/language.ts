/**
 * oslo.policy's rule language: parsing rule strings (and the legacy list-of-lists form) into
 * check trees, and evaluating those trees against a target and a caller's credentials.
 *
 * oslo.policy compat: the tokenizer, the check kinds and their matching rules follow
 * `oslo_policy/_parser.py` and `oslo_policy/_checks.py` (4.0.0, the Zed release CloudKitty 17 goes with). A rule that
 * does not parse evaluates as `!` (deny), as oslo does, and the errors are returned so a policy
 * file load can report them instead of only logging them.
 */

/** A parsed check tree. `generic.literal` is the Python `str()` of a literal left side, else null. */
export type PolicyCheck =
  | { kind: 'always' }
  | { kind: 'never' }
  | { kind: 'role'; match: string }
  | { kind: 'rule'; name: string }
  | { kind: 'generic'; subject: string; literal: string | null; match: string }
  | { kind: 'not'; check: PolicyCheck }
  | { kind: 'and'; checks: PolicyCheck[] }
  | { kind: 'or'; checks: PolicyCheck[] };

/** oslo.policy compat: the legacy syntax; the outer list is joined by `or`, each inner one by `and`. */
export type LegacyListRule = readonly (string | readonly string[])[];

/** A parsed rule: `check` is `!` when the rule as a whole failed to parse; `errors` empty when clean. */
export interface ParsedRule {
  check: PolicyCheck;
  errors: string[];
}

/** Values of the target (`%(key)s` substitutions) and credentials (left sides); any JSON-like data. */
export type PolicyValues = Readonly<Record<string, unknown>>;

/** Finds a named rule for `rule:name`; undefined when no such rule exists (the check then denies). */
export type RuleLookup = (name: string) => PolicyCheck | undefined;

const NEVER: PolicyCheck = { kind: 'never' };
const ALWAYS: PolicyCheck = { kind: 'always' };
type Token = { type: '(' | ')' | 'and' | 'or' | 'not' | 'string'; text: string } | { type: 'check'; text: string; check: PolicyCheck };

/**
 * Parses a rule: a string in the policy language (`""` means always) or the legacy list form
 * (`[]` means always). Never throws: a failed parse gives `!` plus errors.
 */
export function parseRule(source: string | LegacyListRule): ParsedRule {
  const errors: string[] = [];
  if (typeof source !== 'string') return { check: parseLegacyRule(source, errors), errors };
  if (source === '') return { check: ALWAYS, errors };
  const parser = new TokenParser(tokenize(source, errors));
  try {
    return { check: parser.parseWhole(), errors };
  } catch (error) {
    if (!(error instanceof RuleSyntaxError)) throw error;
    return { check: NEVER, errors: [...errors, `${error.message} in rule '${source}'`] };
  }
}

class RuleSyntaxError extends Error {}

/** oslo.policy compat: `_parse_tokenize` — split on blanks, peel parentheses off each word's ends. */
function tokenize(rule: string, errors: string[]): Token[] {
  const tokens: Token[] = [];
  for (const word of rule.split(/\s+/)) {
    if (word === '') continue;
    const withoutLeading = word.replace(/^\(+/, '');
    for (let index = 0; index < word.length - withoutLeading.length; index += 1) tokens.push({ type: '(', text: '(' });
    if (withoutLeading === '') continue;
    const clean = withoutLeading.replace(/\)+$/, '');
    const lowered = clean.toLowerCase();
    if (lowered === 'and' || lowered === 'or' || lowered === 'not') {
      tokens.push({ type: lowered, text: clean });
    } else if (clean !== '') {
      const quote = withoutLeading[0];
      if (withoutLeading.length >= 2 && (quote === '"' || quote === "'") && withoutLeading.endsWith(quote)) {
        tokens.push({ type: 'string', text: withoutLeading.slice(1, -1) });
      } else {
        const parsed = parseSingleCheck(clean);
        if (parsed.error !== undefined) errors.push(parsed.error);
        tokens.push({ type: 'check', text: clean, check: parsed.check });
      }
    }
    for (let index = 0; index < withoutLeading.length - clean.length; index += 1) tokens.push({ type: ')', text: ')' });
  }
  return tokens;
}

/** Precedence as oslo's reductions give it: `not` binds tighter than `and`, `and` tighter than `or`. */
class TokenParser {
  private position = 0;

  constructor(private readonly tokens: Token[]) {}

  parseWhole(): PolicyCheck {
    if (this.tokens.length === 0) throw new RuleSyntaxError('empty rule (only blanks)');
    const check = this.parseOr();
    if (this.position < this.tokens.length) throw new RuleSyntaxError(`unexpected '${this.tokens[this.position].text}' at token ${this.position + 1}`);
    return check;
  }

  private parseOr(): PolicyCheck {
    return this.parseJoined('or', () => this.parseJoined('and', () => this.parseUnary()));
  }

  private parseJoined(operator: 'and' | 'or', parseOperand: () => PolicyCheck): PolicyCheck {
    const checks = [parseOperand()];
    while (this.tokens[this.position]?.type === operator) {
      this.position += 1;
      checks.push(parseOperand());
    }
    return checks.length === 1 ? checks[0] : { kind: operator, checks };
  }

  private parseUnary(): PolicyCheck {
    const token = this.tokens[this.position];
    if (token === undefined) throw new RuleSyntaxError('unexpected end of rule');
    this.position += 1;
    if (token.type === 'not') return { kind: 'not', check: this.parseUnary() };
    if (token.type === 'check') return token.check;
    if (token.type === '(') {
      const inner = this.parseOr();
      if (this.tokens[this.position]?.type !== ')') throw new RuleSyntaxError(`missing ')' at token ${this.position + 1}`);
      this.position += 1;
      return inner;
    }
    if (token.type === 'string') throw new RuleSyntaxError(`quoted string '${token.text}' is not a check`);
    throw new RuleSyntaxError(`unexpected '${token.text}' at token ${this.position}`);
  }
}

/** oslo.policy compat: `_parse_list_rule`; each element is one check (no operators). */
function parseLegacyRule(rule: LegacyListRule, errors: string[]): PolicyCheck {
  if (rule.length === 0) return ALWAYS;
  const alternatives: PolicyCheck[] = [];
  for (const inner of rule) {
    if (inner.length === 0) continue;
    const conjuncts = (typeof inner === 'string' ? [inner] : inner).map((text) => {
      const parsed = parseSingleCheck(text);
      if (parsed.error !== undefined) errors.push(parsed.error);
      return parsed.check;
    });
    alternatives.push(conjuncts.length === 1 ? conjuncts[0] : { kind: 'and', checks: conjuncts });
  }
  if (alternatives.length === 0) return NEVER;
  return alternatives.length === 1 ? alternatives[0] : { kind: 'or', checks: alternatives };
}

/** oslo.policy compat: `_parse_check` — `@`, `!`, or `kind:match` split at the first colon. */
function parseSingleCheck(text: string): { check: PolicyCheck; error?: string } {
  if (text === '@') return { check: ALWAYS };
  if (text === '!') return { check: NEVER };
  const colon = typeof text === 'string' ? text.indexOf(':') : -1;
  if (colon <= 0) return { check: NEVER, error: `'${text}' is not a check: expected kind:match, @ or !` };
  const subject = text.slice(0, colon);
  const match = text.slice(colon + 1);
  if (subject === 'http' || subject === 'https') return { check: NEVER, error: `'${text}': remote http(s) checks are not supported` };
  if (subject === 'rule') return { check: { kind: 'rule', name: match } };
  if (match.replace(/%\([^)]*\)s|%%/g, '').includes('%')) {
    return { check: NEVER, error: `'${text}': only %(name)s and %% may follow '%'` };
  }
  if (subject === 'role') return { check: { kind: 'role', match } };
  return { check: { kind: 'generic', subject, literal: pythonLiteral(subject), match } };
}

/** oslo.policy compat: `ast.literal_eval` of a check's left side, as `str()` gives it; null if not a literal. */
function pythonLiteral(text: string): string | null {
  const quoted = /^'(.*)'$|^"(.*)"$/s.exec(text);
  if (quoted) return quoted[1] ?? quoted[2];
  if (text === 'True' || text === 'False' || text === 'None') return text;
  if (/^[+-]?\d+$/.test(text)) return BigInt(text).toString();
  if (/^[+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)$/.test(text)) return pythonString(Number(text), true);
  return null;
}

/** Python's `str()` of a JSON-like value: `True`, `False`, `None`, `1.0` for an integral float. */
export function pythonString(value: unknown, isFloat = false): string {
  if (typeof value === 'string') return value;
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'number') return isFloat && Number.isInteger(value) ? `${value}.0` : String(value);
  if (Array.isArray(value)) return `[${value.map((item) => (typeof item === 'string' ? `'${item}'` : pythonString(item))).join(', ')}]`;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Python's `match % target`; null when a `%(key)s` names no key of the target (the check denies). */
function substitute(match: string, target: PolicyValues): string | null {
  let missing = false;
  const result = match.replace(/%\(([^)]*)\)s|%%/g, (whole, key: string | undefined) => {
    if (key === undefined) return '%';
    if (!Object.hasOwn(target, key)) missing = true;
    return pythonString(target[key]);
  });
  return missing ? null : result;
}

/** oslo.policy compat: `GenericCheck._find_in_dict`; a list on the path matches if any element does. */
function findInCredentials(value: unknown, path: readonly string[], match: string): boolean {
  if (path.length === 0) return match === pythonString(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const [key, ...rest] = path;
  if (!Object.hasOwn(value, key)) return false;
  const next = (value as Record<string, unknown>)[key];
  if (Array.isArray(next)) return next.some((item) => findInCredentials(item, rest, match));
  return findInCredentials(next, rest, match);
}

/**
 * Evaluates a check tree. Never throws. `rule:` references resolve through `lookupRule`; an unknown
 * or cyclic reference (a rule already being evaluated on this path) denies.
 */
export function evaluateCheck(
  check: PolicyCheck,
  target: PolicyValues,
  credentials: PolicyValues,
  lookupRule: RuleLookup,
  activeRules: Set<string> = new Set(),
): boolean {
  switch (check.kind) {
    case 'always':
      return true;
    case 'never':
      return false;
    case 'not':
      return !evaluateCheck(check.check, target, credentials, lookupRule, activeRules);
    case 'and':
      return check.checks.every((inner) => evaluateCheck(inner, target, credentials, lookupRule, activeRules));
    case 'or':
      return check.checks.some((inner) => evaluateCheck(inner, target, credentials, lookupRule, activeRules));
    case 'rule': {
      const referenced = activeRules.has(check.name) ? undefined : lookupRule(check.name);
      if (referenced === undefined) return false;
      activeRules.add(check.name);
      const result = evaluateCheck(referenced, target, credentials, lookupRule, activeRules);
      activeRules.delete(check.name);
      return result;
    }
    case 'role': {
      const wanted = substitute(check.match, target)?.toLowerCase();
      const roles = credentials.roles;
      return wanted !== undefined && Array.isArray(roles) && roles.some((role) => typeof role === 'string' && role.toLowerCase() === wanted);
    }
    case 'generic': {
      const match = substitute(check.match, target);
      if (match === null) return false;
      return check.literal !== null ? match === check.literal : findInCredentials(credentials, check.subject.split('.'), match);
    }
  }
}

/** oslo.policy compat: close to the checks' `str()` (oslo also flattens some nested ands) — `@`, `!`, `kind:match`, `not x`, `(a and b)`, `(a or b)`. */
export function describeCheck(check: PolicyCheck): string {
  switch (check.kind) {
    case 'always':
      return '@';
    case 'never':
      return '!';
    case 'role':
      return `role:${check.match}`;
    case 'rule':
      return `rule:${check.name}`;
    case 'generic':
      return `${check.subject}:${check.match}`;
    case 'not':
      return `not ${describeCheck(check.check)}`;
    case 'and':
      return `(${check.checks.map(describeCheck).join(' and ')})`;
    case 'or':
      return `(${check.checks.map(describeCheck).join(' or ')})`;
  }
}
