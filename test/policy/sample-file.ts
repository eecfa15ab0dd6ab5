/**
 * The sample policy file as an operator turns it into a policy file: every commented-out rule
 * line (`#"name": "check"`) uncommented; the notes, and the deprecated aliases (`# "old": "rule:new"`),
 * stay comments.
 */
export function uncommentedSample(sample: string): string {
  return sample.replace(/^#"/gm, '"');
}
