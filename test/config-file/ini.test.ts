/**
 * oslo.config's INI dialect: Tariff's parser against oslo.config's own (`oslo_config/iniparser.py`,
 * Debian's) on generated files — the same assignments, or an error on the same line — and the
 * one-line errors Tariff prints.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigFileError, parseIni } from '../../src/config-file/ini.js';
import { debianPythonMissing, runPython } from './debian-python.js';

/** oslo.config's ConfigParser without a file: the assignments as [section, key, value], or the error's line and message. */
const OSLO_PARSER = `
import io, json, sys
from oslo_config import cfg, iniparser

class Parser(iniparser.BaseParser):
    def __init__(self):
        self.section = None
        self.found = []
    def new_section(self, section):
        self.section = section
    def assignment(self, key, value):
        if not self.section:
            raise iniparser.ParseError('Section must be started before assignment', self.lineno, None)
        self.found.append([cfg._normalize_group_name(self.section), key.replace('-', '_'), '\\n'.join(value)])

results = []
for text in json.load(sys.stdin):
    parser = Parser()
    try:
        parser.parse(io.StringIO(text, newline=None).readlines())
        results.append({'options': parser.found})
    except iniparser.ParseError as error:
        results.append({'line': error.lineno, 'message': error.msg})
print(json.dumps(results))
`;

type OsloResult = { options: [string, string, string][] } | { line: number; message: string };

const text = (characters: string, maxLength: number) => fc.array(fc.constantFrom(...characters.split('')), { maxLength }).map((chosen) => chosen.join(''));
const valueText = text('abcXYZ019 \t=:#;[]"\'-_$./@', 24);
const keyText = fc.oneof(fc.constantFrom('connection', 'auth_url', 'auth-url', 'port', 'debug', 'Password'), text('abz_-.09 ', 8));
const sectionName = fc.oneof(fc.constantFrom('DEFAULT', 'default', 'Database', 'database', 'keystone_authtoken', 'tariff', ' api '), text('abZ_[ ', 6));

/** One line of a file: every kind oslo's parser distinguishes, well formed or not. */
const line = fc.oneof(
  fc.constantFrom('', ' ', '\t', '  \t '),
  fc.tuple(fc.constantFrom('#', ';'), valueText).map(([mark, rest]) => mark + rest),
  sectionName.map((name) => `[${name}]`),
  fc.oneof(
    sectionName.map((name) => `[${name}`),
    fc.constant('[]'),
    fc.constant('[] '),
  ),
  fc
    .tuple(keyText, fc.constantFrom('=', ' = ', ':', ' : ', '= ', ' =  ', ': '), valueText, fc.constantFrom('', ' ', '\t'))
    .map(([key, separator, value, trailing]) => key + separator + value + trailing),
  fc.tuple(fc.constantFrom(' ', '\t', '   '), valueText).map(([indent, rest]) => indent + rest),
  valueText,
);

/** A file: mostly a section first, as real files are, so that the later lines are reached. */
const file = fc
  .tuple(fc.boolean(), sectionName, fc.array(line, { maxLength: 14 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean())
  .map(([header, section, lines, newline, finalNewline]) => (header ? [`[${section}]`, ...lines] : lines).join(newline) + (finalNewline ? newline : ''));

describe.skipIf(debianPythonMissing !== undefined)("the INI dialect against oslo.config's parser", () => {
  it('reads every generated file as oslo.config does: the same assignments, or an error on the same line', () => {
    const files = fc.sample(file, { numRuns: 3000, seed: 23 });
    const oslo = runPython<OsloResult[]>(OSLO_PARSER, files);
    let errors = 0;
    files.forEach((content, index) => {
      const expected = oslo[index];
      let options: [string, string, string][] | undefined;
      let errorLine: number | undefined;
      try {
        options = parseIni(content, 'cloudkitty.conf').map((option) => [option.section, option.key, option.value]);
      } catch (error) {
        if (!(error instanceof ConfigFileError)) throw error;
        errorLine = error.origin.line;
      }
      const context = `file ${JSON.stringify(content)}`;
      if ('options' in expected) {
        expect(errorLine, context).toBeUndefined();
        expect(options, context).toEqual(expected.options);
      } else {
        errors += 1;
        expect(options, `${context}: oslo says line ${expected.line}: ${expected.message}`).toBeUndefined();
        // Tariff names the assignment's own line; oslo the line where it noticed (the next one).
        if (expected.message !== 'Section must be started before assignment') expect(errorLine, context).toBe(expected.line);
      }
    });
    // Both kinds were generated.
    expect(errors).toBeGreaterThan(100);
    expect(errors).toBeLessThan(files.length - 100);
  });
});

describe('the INI dialect', () => {
  it('reads a kolla-ansible cloudkitty.conf: sections lowercased but DEFAULT, quotes, continuation lines, comments kept out', () => {
    const options = parseIni(
      [
        '[DEFAULT]',
        'debug = False',
        '# a comment = not an option',
        '[Database]',
        'connection = mysql+pymysql://cloudkitty:pa#ss;word@10.0.0.1/cloudkitty',
        '[keystone_authtoken]',
        'memcached_servers: 10.0.0.1:11211,',
        '  10.0.0.2:11211',
        'password = "quoted "',
        'auth-url = http://keystone:5000',
        'username=',
      ].join('\n'),
      '/etc/cloudkitty/cloudkitty.conf',
    );
    expect(options.map(({ section, key, value, line }) => [line, section, key, value])).toEqual([
      [2, 'DEFAULT', 'debug', 'False'],
      [5, 'database', 'connection', 'mysql+pymysql://cloudkitty:pa#ss;word@10.0.0.1/cloudkitty'],
      [7, 'keystone_authtoken', 'memcached_servers', '10.0.0.1:11211,\n10.0.0.2:11211'],
      [9, 'keystone_authtoken', 'password', 'quoted '],
      [10, 'keystone_authtoken', 'auth_url', 'http://keystone:5000'],
      [11, 'keystone_authtoken', 'username', ''],
    ]);
  });

  it.each([
    ['[DEFAULT]\ndebug\n', "/c.conf:2: no ':' or '=' in \"debug\": expected 'key = value', '[section]' or a comment"],
    ['[DEFAULT]\n= 1\n', '/c.conf:2: the key is empty in "= 1"'],
    ['  indented = 1\n', '/c.conf:1: an indented line continues no option: "indented = 1"'],
    ['[DEFAULT]\n# comment\n  continued\n', '/c.conf:3: an indented line continues no option: "continued"'],
    ['[database\n', '/c.conf:1: a section header must end with \']\': "[database"'],
    ['[DEFAULT]\n[]\n', '/c.conf:2: the section name is empty: []'],
    ['debug = true\n[DEFAULT]\n', "/c.conf:1: 'debug' is set before any [section] (put it under [DEFAULT])"],
  ])('refuses %j with one line naming file, line and problem', (content, message) => {
    let thrown: unknown;
    try {
      parseIni(content, '/c.conf');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigFileError);
    expect((thrown as Error).message).toBe(message);
    expect((thrown as Error).message).not.toContain('\n');
  });
});
