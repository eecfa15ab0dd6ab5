/**
 * Hostile values for the fuzzer of issue 11 (test/fuzz/hostile-input.test.ts), as fast-check
 * arbitraries: one arbitrary per class of input that once broke a server like Tariff, usable as a
 * JSON body value, an object key, or a query/path text.
 *
 * A body is a tree of plain JSON values plus three markers that JSON.stringify cannot express:
 * {@link Raw} (bytes inserted verbatim: unbounded JSON numbers, deep nesting, invalid UTF-8),
 * {@link Repeat} (a long string, printed short in counterexamples) and {@link IdRef} (an id of a
 * seeded object, resolved when the request is sent). {@link encodeJson} writes such a tree.
 */
import fc from 'fast-check';

/** The classes of hostile input; the fuzzer sends each at least once per route. */
export const HOSTILE_CLASSES = ['exponent', 'prototype', 'deep', 'utf8', 'surrogate', 'long', 'wrongType', 'nul', 'missing', 'extra', 'raw'] as const;
/** One class of hostile input (see {@link HOSTILE_CLASSES}). */
export type HostileClass = (typeof HOSTILE_CLASSES)[number];

/** Bytes written verbatim into a JSON body (or a whole body), with a short label for reports. */
export class Raw {
  constructor(
    readonly bytes: Buffer,
    readonly label: string,
  ) {}
  [fc.toStringMethod](): string {
    return `Raw(${this.label})`;
  }
}

/** A long string `unit × times`, kept symbolic so counterexamples stay readable. */
export class Repeat {
  constructor(
    readonly unit: string,
    readonly times: number,
    readonly prefix = '',
  ) {}
  text(): string {
    return this.prefix + this.unit.repeat(this.times);
  }
  [fc.toStringMethod](): string {
    return `Repeat(${JSON.stringify(this.prefix)} + ${JSON.stringify(this.unit)} × ${this.times})`;
  }
}

/** Kinds of seeded objects whose ids requests may carry; `unknown` is a well-formed id of nothing. */
export type IdKind = 'service' | 'field' | 'group' | 'mapping' | 'threshold' | 'script' | 'module' | 'unknown';

/** The id of the `index`-th seeded object of a kind (modulo how many there are), resolved at send time. */
export class IdRef {
  constructor(
    readonly kind: IdKind,
    readonly index: number,
  ) {}
  [fc.toStringMethod](): string {
    return `<${this.kind} id #${this.index}>`;
  }
}

/** Text put verbatim into a URL (already percent-encoded, or raw bytes as latin1 characters). */
export class UrlPiece {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `UrlPiece(${JSON.stringify(this.text.length > 80 ? `${this.text.slice(0, 80)}…(${this.text.length})` : this.text)})`;
  }
}

/** A body value: JSON plus the markers. Objects are built with `Object.fromEntries`, so `__proto__` can be an own key. */
export type Node = null | boolean | number | string | Raw | Repeat | IdRef | Node[] | { [key: string]: Node };

/** Resolves an {@link IdRef} to the id it names. */
export type IdResolver = (ref: IdRef) => string;

/**
 * Writes a body tree as JSON bytes: strings through JSON.stringify (lone surrogates come out as
 * `\udXXX` escapes), {@link Raw} verbatim, {@link Repeat} expanded, {@link IdRef} resolved.
 */
export function encodeJson(node: Node, resolve: IdResolver): Buffer {
  const chunks: Buffer[] = [];
  let text = '';
  const flush = () => {
    if (text) chunks.push(Buffer.from(text, 'utf8'));
    text = '';
  };
  const write = (value: Node): void => {
    if (value instanceof Raw) {
      flush();
      chunks.push(value.bytes);
    } else if (value instanceof Repeat) {
      text += JSON.stringify(value.text());
    } else if (value instanceof IdRef) {
      text += JSON.stringify(resolve(value));
    } else if (Array.isArray(value)) {
      text += '[';
      value.forEach((item, index) => {
        if (index) text += ',';
        write(item);
      });
      text += ']';
    } else if (value !== null && typeof value === 'object') {
      text += '{';
      Object.keys(value).forEach((key, index) => {
        if (index) text += ',';
        text += `${JSON.stringify(key)}:`;
        write(value[key]);
      });
      text += '}';
    } else {
      text += JSON.stringify(value) ?? 'null';
    }
  };
  write(node);
  flush();
  return Buffer.concat(chunks);
}

/** An object with exactly these own keys (`__proto__` included), for body trees. */
export function objectOf(entries: [string, Node][]): { [key: string]: Node } {
  return Object.fromEntries<Node>(entries);
}

// ---------------------------------------------------------------------------------------------
// The classes

/** Names that exist on every JavaScript object (and a few Python ones): lookups by caller text must not find them. */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'then',
  'toJSON',
  'length',
  '__class__',
  '__dict__',
] as const;

/** A prototype name. */
export const prototypeName: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf') },
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
);

/** Exponents no decimal library should try to honour (digits, memory or time grow with them). */
const hugeExponent: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('300000', '999999999', '2147483647', '2147483648', '4294967296', '9007199254740993', '99999999999999999999', '400', '309', '325', '1000000'),
  fc.integer({ min: 400, max: 2_000_000_000 }).map(String),
);

/** Mantissas valid in JSON number syntax. */
const jsonMantissa: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('1', '-1', '0', '9.99', '0.1', '-0', '1.0000000000000000000000000001', '123456789012345678901234567890'),
  fc.stringMatching(/^[1-9][0-9]{20,80}$/),
);

/** Mantissas only a numeric string can carry. */
const textMantissa: fc.Arbitrary<string> = fc.oneof(jsonMantissa, fc.constantFrom('+1', '00001', '1.', '.5', ' 1', '0.' + '0'.repeat(60) + '1'));

/**
 * Decimal text with an unbounded exponent (`"1e300000"`, `"1e-999999999"`, `"9.99E+2147483648"`),
 * the same value written with far too many digits, or an equal value in a weird form.
 */
export const hugeDecimalText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('1e300000', '1e-300000', '1e999999999', '-1e999999999', '1e-999999999', '0e999999999', '1E+2147483648') },
  {
    weight: 4,
    arbitrary: fc.tuple(textMantissa, fc.constantFrom('e', 'E', 'e+', 'e-', 'E-'), hugeExponent).map(([mantissa, e, exponent]) => `${mantissa}${e}${exponent}`),
  },
  // Equal to a small level, in a form only exact arithmetic sees: 10 = 1000…0e-(n-1).
  { weight: 1, arbitrary: fc.integer({ min: 20, max: 200_000 }).map((zeros) => `1${'0'.repeat(zeros)}e-${zeros - 1}`) },
  { weight: 1, arbitrary: fc.integer({ min: 30, max: 300_000 }).map((digits) => `0.${'0'.repeat(digits)}1`) },
);

/** A JSON number literal out of a double's range or precision (`1e308`, `1e309`, `1e-400`, 40-digit integers). */
export const hugeJsonNumber: fc.Arbitrary<Node> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('1e308', '1e309', '-1e400', '1e-400', '5e-324', '1.7976931348623157e308', '123456789012345678901234567890123456789', '1E+2147483648')
      .map((text) => new Raw(Buffer.from(text), text)),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(jsonMantissa, fc.constantFrom('e', 'E', 'e+', 'e-'), hugeExponent)
      .map(([mantissa, e, exponent]) => new Raw(Buffer.from(`${mantissa}${e}${exponent}`), `${mantissa}${e}${exponent}`)),
  },
  { weight: 1, arbitrary: fc.constantFrom(1e308, Number.MAX_VALUE, Number.MIN_VALUE, Number.MAX_SAFE_INTEGER + 2, 1e21, 1e-7, -1e308) },
);

/** Numeric-looking text no decimal parser should accept silently. */
export const oddNumericText: fc.Arbitrary<string> = fc.constantFrom(
  'Infinity',
  '-Infinity',
  'NaN',
  'inf',
  'nan',
  'sNaN',
  '0x10',
  '1_000',
  ' 1 ',
  '1,5',
  '١٢',
  '１２',
  '',
  '.',
  '-',
  'e5',
  '1e',
  '--1',
  '0b1',
  '1e+',
  '∞',
  '1e1e1',
  '+-1',
);

/** Values of the `exponent` class: unbounded exponents as strings and as JSON numbers. */
export const exponentValue: fc.Arbitrary<Node> = fc.oneof(
  { weight: 6, arbitrary: hugeDecimalText },
  { weight: 3, arbitrary: hugeJsonNumber },
  { weight: 1, arbitrary: oddNumericText },
);

/** Nesting depths: past any recursive parser, validator, copier or printer. */
const depth: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(1000, 5000, 10_000, 100_000), fc.integer({ min: 500, max: 150_000 }));

/** JSON nested `depth` levels deep: arrays, objects, or both, with a leaf. */
export const deepJson: fc.Arbitrary<Raw> = fc
  .tuple(depth, fc.constantFrom('array', 'object', 'mixed'), fc.constantFrom('1', '"x"', 'null', '{}', '1e999999999'))
  .map(([levels, shape, leaf]) => {
    const [open, close] = shape === 'array' ? ['[', ']'] : shape === 'object' ? ['{"a":', '}'] : ['[{"a":', '}]'];
    const count = shape === 'mixed' ? Math.ceil(levels / 2) : levels;
    return new Raw(Buffer.from(open.repeat(count) + leaf + close.repeat(count)), `${shape} nested ${levels} deep, leaf ${leaf}`);
  });

/** Byte sequences that are not UTF-8: stray continuation bytes, overlong forms, encoded surrogates, truncations, 5-byte forms. */
const INVALID_UTF8: number[][] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xbf],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xc3],
];

/** Invalid UTF-8 mixed with ASCII. */
export const invalidUtf8Bytes: fc.Arbitrary<Buffer> = fc
  .array(
    fc.oneof(
      fc.constantFrom(...INVALID_UTF8),
      fc.constantFrom('compute', 'm1.tiny', 'a', '10').map((text) => [...Buffer.from(text)]),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .filter((parts) => parts.some((part) => part[0] >= 0x80))
  .map((parts) => Buffer.from(parts.flat()));

/** A JSON string literal holding invalid UTF-8 bytes, raw. */
export const invalidUtf8String: fc.Arbitrary<Raw> = invalidUtf8Bytes.map(
  (bytes) => new Raw(Buffer.concat([Buffer.from('"'), bytes, Buffer.from('"')]), `string with bytes ${bytes.toString('hex')}`),
);

/** Strings holding lone or reversed UTF-16 surrogates (JSON.stringify writes them as `\udXXX` escapes). */
export const surrogateString: fc.Arbitrary<Node> = fc.oneof(
  fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', 'compute\ud800', '\ud800compute', 'm1.tiny\udfff', '\udc00\ud800', '\ud83d', 'a\ud83dz'),
  fc.tuple(fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 5 })).map(([unit, text]) => text + String.fromCharCode(unit)),
  // Escapes written by hand: upper-case hex and an escaped surrogate before an escaped letter.
  fc.constantFrom('"\\uD800"', '"\\uDFFF\\uD800"', '"\\ud800\\u0041"', '"x\\udc00"').map((text) => new Raw(Buffer.from(text), `escaped ${text}`)),
);

/** Long strings: around column widths, past the 1 MiB body limit, long digit runs (quadratic decimal parsing). */
export const longString: fc.Arbitrary<Repeat> = fc.oneof(
  fc
    .tuple(fc.constantFrom('a', 'é', '😀', ' ', '%', '\\', '"'), fc.constantFrom(32, 33, 255, 256, 257, 1025, 65_536, 1_048_577, 2_500_000))
    .map(([unit, times]) => new Repeat(unit, times)),
  fc
    .tuple(fc.constantFrom('9', '0', '1'), fc.constantFrom(41, 1000, 100_000, 1_000_000))
    .map(([unit, times]) => new Repeat(unit, times, unit === '0' ? '0.' : '')),
  fc.integer({ min: 1, max: 300_000 }).map((times) => new Repeat('x', times)),
);

/** Values of the wrong JSON type for wherever they land. */
export const wrongType: fc.Arbitrary<Node> = fc.oneof(
  fc.constantFrom<Node>(null, true, false, 0, -1, 1.5, '', [], {}, [null], [[]], { a: {} }, 'true', '[object Object]', -0, ['1'], { qty: '1' }),
  fc.array(fc.integer(), { minLength: 1000, maxLength: 3000 }),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Node>,
);

/** Strings with NUL and other control characters, also around valid names. */
export const nulString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000',
    '\u0000compute',
    'compute\u0000',
    'm1.tiny\u0000',
    '10\u0000',
    '\u0000'.repeat(64),
    '\u0001\u001f\u007f',
    'line\nbreak',
    '\u2028',
    '\r\n',
  ),
  fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([before, after]) => `${before}\u0000${after}`),
);

/** Text that stresses matching and storage: SQL and LIKE metacharacters, odd Unicode, whitespace. */
export const trickyText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "' OR '1'='1",
    '%',
    '_',
    '\\',
    '%%',
    '\\%',
    "'; DROP TABLE hashmap_services; --",
    '"',
    '`',
    '\u202eevil',
    'e\u0301',
    '\u200d',
    'ＣＯＭＰＵＴＥ',
    ' ',
    '\t',
    'COMPUTE',
    'compute ',
    ' compute',
  ),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

/** Datetime text at and past every edge. */
export const oddDatetime: fc.Arbitrary<string> = fc.constantFrom(
  '9999-12-31T23:59:59',
  '0000-01-01T00:00:00',
  '0001-01-01',
  '2024-02-30T00:00:00',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '1e999999',
  '2024-01-01T00:00:00+99:99',
  'now',
  `2024-01-01T00:00:00.${'9'.repeat(1000)}`,
  '2024-01-01T24:00:00',
  '2024-01-01T00:00:60',
  '20240101',
  '1704067200',
  '2030-01-01T00:00:00+14:00',
  '2030-01-01 00:00:00',
  '2030-01-01T00:00:00.5-12:00',
);

/** Whole bodies that are not a JSON object: random bytes, truncated or trailing garbage, BOMs, scalars. */
export const rawBody: fc.Arbitrary<Raw> = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 200 }).map((bytes) => new Raw(Buffer.from(bytes), `${bytes.length} random bytes`)),
  fc
    .constantFrom(
      '',
      ' ',
      'null',
      '[]',
      '"text"',
      '1e999999999',
      '{',
      '{"',
      '{"a":1',
      '{"a":1}}',
      '{"a":1} x',
      '{"a":1,}',
      "{'a':1}",
      '{"a":NaN}',
      '{"a":undefined}',
      '\ufeff{}',
      '{}\u0000',
      '{"a":1,"a":2}',
      '--',
      'true',
      '0',
    )
    .map((text) => new Raw(Buffer.from(text), JSON.stringify(text))),
  invalidUtf8Bytes.map((bytes) => new Raw(bytes, `bytes ${bytes.toString('hex')}`)),
  fc.constantFrom('{"name":"caf\xe9"}', '{"name":"\xff"}').map((text) => new Raw(Buffer.from(text, 'latin1'), `latin1 ${JSON.stringify(text)}`)),
  deepJson,
  fc.string({ unit: 'binary', maxLength: 100 }).map((text) => new Raw(Buffer.from(text, 'utf16le'), 'UTF-16LE text')),
);

/** A body value of a class (for `missing`/`extra`, which act on keys, any hostile value). */
export function hostileValue(klass: HostileClass): fc.Arbitrary<Node> {
  switch (klass) {
    case 'exponent':
      return exponentValue;
    case 'prototype':
      return fc.oneof(
        { weight: 3, arbitrary: prototypeName },
        { weight: 1, arbitrary: prototypeName.map((name) => objectOf([[name, objectOf([['prototype', objectOf([['polluted', 1]])]])]])) },
        { weight: 1, arbitrary: prototypeName.map((name) => objectOf([[name, '1']])) },
      );
    case 'deep':
      return deepJson;
    case 'utf8':
      return invalidUtf8String;
    case 'surrogate':
      return surrogateString;
    case 'long':
      return longString;
    case 'wrongType':
      return wrongType;
    case 'nul':
      return nulString;
    case 'raw':
      return rawBody;
    case 'missing':
    case 'extra':
      return anyHostileValue;
  }
}

/** Any hostile value, the decimal and prototype classes weighted up. */
export const anyHostileValue: fc.Arbitrary<Node> = fc.oneof(
  { weight: 4, arbitrary: exponentValue },
  { weight: 3, arbitrary: prototypeName },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: invalidUtf8String },
  { weight: 1, arbitrary: surrogateString },
  { weight: 1, arbitrary: longString },
  { weight: 3, arbitrary: wrongType },
  { weight: 1, arbitrary: nulString },
  { weight: 1, arbitrary: trickyText },
  { weight: 1, arbitrary: oddDatetime },
);

/** An object key of a class: prototype names, control characters, surrogates, long keys, odd spellings. */
export function hostileKey(klass: HostileClass, knownKeys: readonly string[]): fc.Arbitrary<string> {
  const known = knownKeys.length ? fc.constantFrom(...knownKeys) : fc.constant('name');
  switch (klass) {
    case 'prototype':
      return prototypeName;
    case 'nul':
      return fc.oneof(
        nulString,
        known.map((key) => `${key}\u0000`),
      );
    case 'surrogate':
      return fc.oneof(
        fc.constantFrom('\ud800', '\udfff'),
        known.map((key) => `${key}\ud800`),
      );
    case 'long':
      return fc.constantFrom(256, 10_000, 100_000).map((length) => 'k'.repeat(length));
    default:
      return fc.oneof(
        { weight: 3, arbitrary: prototypeName },
        { weight: 2, arbitrary: known.map((key) => key.toUpperCase()) },
        { weight: 1, arbitrary: known.map((key) => ` ${key}`) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            'created_at',
            'deleted',
            'checksum',
            'id',
            'usage',
            'resources',
            'desc',
            'groupby',
            'metadata',
            'vol',
            'qty',
            'rating',
            'price',
            'service',
            'volume',
            'level',
            'cost',
            'recursive',
            'force',
          ),
        },
        { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
        { weight: 1, arbitrary: nulString },
      );
  }
}

// ---------------------------------------------------------------------------------------------
// URL text

/** Percent-encodes text as UTF-8 (a lone surrogate as its 3-byte WTF-8 form, which is invalid UTF-8). */
export function percentEncode(text: string): string {
  let out = '';
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    const char = text[index];
    if (/[A-Za-z0-9\-._~]/.test(char)) {
      out += char;
      continue;
    }
    let codePoint = unit;
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        codePoint = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
        index++;
      }
    }
    out += [...wtf8(codePoint)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

function wtf8(codePoint: number): number[] {
  if (codePoint < 0x80) return [codePoint];
  if (codePoint < 0x800) return [0xc0 | (codePoint >> 6), 0x80 | (codePoint & 63)];
  if (codePoint < 0x10000) return [0xe0 | (codePoint >> 12), 0x80 | ((codePoint >> 6) & 63), 0x80 | (codePoint & 63)];
  return [0xf0 | (codePoint >> 18), 0x80 | ((codePoint >> 12) & 63), 0x80 | ((codePoint >> 6) & 63), 0x80 | (codePoint & 63)];
}

/** A text for a URL (query value or name, path segment): plain text, a {@link Repeat}, an {@link IdRef} or a verbatim {@link UrlPiece}. */
export type UrlText = string | Repeat | IdRef | UrlPiece;

/** Percent-escapes that decode to nothing valid, or do not decode at all, and raw non-ASCII bytes. */
export const badEscape: fc.Arbitrary<UrlPiece> = fc.oneof(
  fc
    .constantFrom(
      '%FF',
      '%ED%A0%80',
      '%C0%80',
      '%E2%82',
      '%F8%88%80%80%80',
      '%',
      '%%',
      '%zz',
      '%0',
      '%00',
      '%uD800',
      '%25FF',
      '%2e%2e',
      '%2F',
      '\xff',
      '\xe9',
      'caf\xe9',
    )
    .map((text) => new UrlPiece(text)),
  fc
    .array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 4 })
    .map((bytes) => new UrlPiece(bytes.map((byte) => `%${byte.toString(16).toUpperCase()}`).join(''))),
);

/** A URL text of a class. */
export function hostileUrlText(klass: HostileClass): fc.Arbitrary<UrlText> {
  switch (klass) {
    case 'exponent':
      return fc.oneof(hugeDecimalText, oddNumericText);
    case 'prototype':
      return prototypeName;
    case 'deep':
      return fc.constantFrom(100, 1000, 5000).map((levels) => new UrlPiece(`${'%5B'.repeat(levels)}${'%5D'.repeat(levels)}`));
    case 'utf8':
    case 'raw':
      return badEscape;
    case 'surrogate':
      return fc.oneof(fc.constantFrom('\ud800', '\udfff', 'x\udc00'), fc.constant(new UrlPiece('%uD800')));
    case 'long':
      return fc.constantFrom(256, 4096, 20_000, 100_000).map((times) => new Repeat('a', times));
    case 'nul':
      return fc.oneof(nulString, fc.constant(new UrlPiece('%00')));
    case 'wrongType':
      return fc.constantFrom('', 'null', 'true', '[]', '{}', '1.5', '-1', 'undefined', '[object Object]');
    case 'missing':
    case 'extra':
      return fc.oneof(prototypeName, trickyText, badEscape, oddDatetime);
  }
}

/** Query parameter names of a class (for `extra`: unknown names, prototype names, bracket forms). */
export function hostileQueryName(klass: HostileClass, known: readonly string[]): fc.Arbitrary<UrlText> {
  const knownName = known.length ? fc.constantFrom(...known) : fc.constant('service_id');
  switch (klass) {
    case 'prototype':
      return prototypeName;
    case 'deep':
      return fc.constantFrom(100, 1000).map((levels) => new UrlPiece(`a${'%5Ba%5D'.repeat(levels)}`));
    case 'utf8':
    case 'raw':
      return badEscape;
    case 'nul':
      return knownName.map((name) => `${name}\u0000`);
    case 'long':
      return fc.constant(new Repeat('q', 10_000));
    case 'surrogate':
      return knownName.map((name) => `${name}\ud800`);
    default:
      return fc.oneof(
        prototypeName,
        knownName.map((name) => `${name}[]`),
        knownName.map((name) => `${name}[__proto__]`),
        fc.constant('constructor[prototype][polluted]'),
        fc.string({ maxLength: 10 }),
        knownName.map((name) => name.toUpperCase()),
        fc.constant(new UrlPiece('')),
      );
  }
}
