/**
 * `tariff policy sample`: the default rules as a sample policy file, in the text
 * `oslopolicy-sample-generator --namespace cloudkitty` prints for CloudKitty master (YAML, each
 * rule commented out under its description, operations, intended scopes and deprecation notes).
 *
 * oslo.policy compat: `oslo_policy/generator.py`'s `_format_rule_default_yaml` and
 * `_format_help_text` (4.0.0, the layout later releases keep), byte for byte; the tests compare
 * this output with the real generator's run on CloudKitty master's code.
 */

import type { PolicyRuleDefault } from './defaults.js';
import { SECURE_RBAC_DEFAULT_RULES } from './defaults-secure-rbac.js';
import { wrapText } from './textwrap.js';

/** What to leave out; oslo.policy compat: the generator's `--exclude-deprecated`. */
export interface PolicySampleOptions {
  /** Leave out the deprecation notes (the rules themselves stay). */
  excludeDeprecated?: boolean;
}

/** The sample policy file for `rules` (CloudKitty master's defaults when absent), ending with a blank line as the generator's does. */
export function policySample(rules: readonly PolicyRuleDefault[] = SECURE_RBAC_DEFAULT_RULES, options: PolicySampleOptions = {}): string {
  return rules.map((rule) => formatRule(rule, !options.excludeDeprecated)).join('');
}

/** oslo.policy compat: `_format_help_text` — paragraphs wrapped at 70 columns behind `# `, indented lines kept as they are. */
export function formatHelpText(description: string): string {
  if (!description) return '#';
  const lines: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    lines.push(...wrapText(paragraph.join(' '), 70, { initial: '# ', subsequent: '# ' }));
    paragraph = [];
  };
  for (const line of pythonSplitLines(pythonStrip(description))) {
    if (pythonStrip(line) === '') {
      flush();
      lines.push('#');
    } else if (line === line.trimStart()) {
      paragraph.push(line.trimEnd());
    } else {
      if (paragraph.length > 0) {
        flush();
        lines.push('#');
      }
      lines.push(`# ${line.trimEnd()}`);
    }
  }
  if (paragraph.length > 0) flush();
  return lines.join('\n');
}

/** oslo.policy compat: `_format_rule_default_yaml(default)` with help, commented rules and deprecation notes. */
function formatRule(rule: PolicyRuleDefault, withDeprecations: boolean): string {
  const operations = (rule.operations ?? []).map(({ method, path }) => `# ${method}  ${path}\n`).join('');
  const scopes = rule.scopeTypes !== undefined ? `# Intended scope(s): ${rule.scopeTypes.join(', ')}\n` : '';
  let text = `${operations}${scopes}#"${rule.name}": "${rule.check}"\n\n`;
  if (rule.description) text = `${formatHelpText(rule.description)}\n${text}`;
  if (withDeprecations && rule.deprecatedForRemoval !== undefined) {
    const { since, reason } = rule.deprecatedForRemoval;
    return `# DEPRECATED\n# "${rule.name}" has been deprecated since ${since}.\n${formatHelpText(reason)}\n${text}`;
  }
  const deprecated = rule.deprecatedRule;
  if (!withDeprecations || deprecated === undefined) return text;
  const note = `"${deprecated.name}":"${deprecated.check}" has been deprecated since ${deprecated.since} in favor of "${rule.name}":"${rule.check}".`;
  text += `# DEPRECATED\n${formatHelpText(note)}\n${formatHelpText(deprecated.reason)}\n`;
  if (deprecated.name !== rule.name) {
    text +=
      '# WARNING: A rule name change has been identified.\n' +
      '#          This may be an artifact of new rules being\n' +
      '#          included which require legacy fallback\n' +
      '#          rules to ensure proper policy behavior.\n' +
      '#          Alternatively, this may just be an alias.\n' +
      '#          Please evaluate on a case by case basis\n' +
      '#          keeping in mind the format for aliased\n' +
      '#          rules is:\n' +
      '#          "old_rule_name": "new_rule_name".\n' +
      `# "${deprecated.name}": "rule:${rule.name}"\n`;
  }
  return `${text}\n`;
}

/** Characters Python's `str.splitlines()` breaks at (besides `\r\n` as one break). */
const LINE_BREAKS = new Set(['\n', '\r', '\v', '\f', String.fromCharCode(0x1c, 0x1d, 0x1e), '\x85', '\u2028', '\u2029'].join(''));
/** Characters Python's `str.strip()` removes beyond JavaScript's `\s`. */
const EXTRA_PYTHON_SPACES = new Set([...String.fromCharCode(0x1c, 0x1d, 0x1e, 0x1f), '\x85']);

/** Python's `str.splitlines()`. */
function pythonSplitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let index = 0; index < text.length; index += 1) {
    if (!LINE_BREAKS.has(text[index])) continue;
    lines.push(text.slice(start, index));
    if (text[index] === '\r' && text[index + 1] === '\n') index += 1;
    start = index + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** Python's `str.strip()`. */
function pythonStrip(text: string): string {
  const isSpace = (character: string) => /\s/u.test(character) || EXTRA_PYTHON_SPACES.has(character);
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text[start])) start += 1;
  while (end > start && isSpace(text[end - 1])) end -= 1;
  return text.slice(start, end);
}
