/**
 * Reading a price list is linear in its text (fix, issue 24: each problem's line was found by
 * splitting all the text before it, so a JSON document of 16,000 duplicate keys, one per line,
 * took 7 s, and a problem's path was found by scanning its map). Each shape below is sent at a
 * size and at four times that size; the time may grow about four times, and must grow far less
 * than the sixteen times of a quadratic path (a ratio, with a generous bound, the best of three
 * runs each, so that a loaded machine does not decide).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { apply } from './price-list.js';

interface Shape {
  name: string;
  format: 'json' | 'yaml';
  /** The size at which it is timed, and four times it. */
  size: number;
  text: (size: number) => string;
  /** The status the dry run answers. */
  status: number;
}

function mappings(count: number, rule: (index: number) => Record<string, unknown>) {
  return { services: { compute: { fields: { flavor: { mappings: Array.from({ length: count }, (_, index) => rule(index)) } } } } };
}

const SHAPES: Shape[] = [
  {
    name: 'duplicate keys, one per line',
    format: 'json',
    size: 4000,
    text: (size) => `{\n${Array.from({ length: size }, (_, index) => `"groups": ["g${index}"],`).join('\n')}\n"services": {}}`,
    status: 400,
  },
  {
    name: 'many problems',
    format: 'json',
    size: 1000,
    text: (size) =>
      JSON.stringify(
        mappings(size, (index) => ({ value: `v${index}`, cost: 'abc' })),
        null,
        1,
      ),
    status: 400,
  },
  {
    name: 'many services in error',
    format: 'json',
    size: 1000,
    text: (size) =>
      JSON.stringify({ services: Object.fromEntries(Array.from({ length: size }, (_, index) => [`s${index}`, { mappings: [{ cost: 'x' }] }])) }, null, 1),
    status: 400,
  },
  {
    name: 'one long line',
    format: 'json',
    size: 10_000,
    text: (size) => JSON.stringify({ groups: Array.from({ length: size }, (_, index) => `g${index}`), services: { x: { mappings: [{ cost: 'y' }] } } }),
    status: 400,
  },
  {
    name: 'nesting at the depth limit, in many rules',
    format: 'json',
    size: 250,
    text: (size) =>
      `{"services": {${Array.from({ length: size }, (_, index) => `"s${index}": {"mappings": [{"cost": 1, "description": ${'['.repeat(26)}${']'.repeat(26)}}]}`).join(',\n')}}}`,
    status: 400,
  },
  {
    name: 'a valid document',
    format: 'json',
    size: 2000,
    text: (size) => JSON.stringify(mappings(size, (index) => ({ value: `v${index}`, cost: '0.10' }))),
    status: 200,
  },
  {
    name: 'many problems',
    format: 'yaml',
    size: 1000,
    text: (size) => jsYaml.dump(mappings(size, (index) => ({ value: `v${index}`, cost: 'abc' }))),
    status: 400,
  },
  {
    name: 'many services in error',
    format: 'yaml',
    size: 1000,
    text: (size) => jsYaml.dump({ services: Object.fromEntries(Array.from({ length: size }, (_, index) => [`s${index}`, { mappings: [{ cost: 'x' }] }])) }),
    status: 400,
  },
  {
    name: 'many keys, one duplicated last',
    format: 'yaml',
    size: 20_000,
    text: (size) => `services:\n${Array.from({ length: size }, (_, index) => `  ${index}: {mappings: [{cost: 1}]}`).join('\n')}\n  0: {}\n`,
    status: 400,
  },
  {
    name: 'one long flow line',
    format: 'yaml',
    size: 10_000,
    text: (size) => `groups: [${Array.from({ length: size }, (_, index) => `g${index}`).join(', ')}]\nservices: {x: {mappings: [{cost: y}]}}\n`,
    status: 400,
  },
  {
    name: 'many anchors, aliases to the limit',
    format: 'yaml',
    size: 2000,
    text: (size) =>
      `groups: [&g a]\nservices:\n${Array.from({ length: size }, (_, index) => `  s${index}: {mappings: [{cost: 1, group: ${index < 100 ? '*g' : 'a'}, description: &d${index} x}]}`).join('\n')}\n`,
    status: 200,
  },
  {
    name: 'block nesting near the depth limit, in many rules',
    format: 'yaml',
    size: 300,
    text: (size) =>
      'services:\n' +
      Array.from(
        { length: size },
        (_, index) =>
          `  s${index}:\n    mappings:\n      - cost: 1\n        description:\n${Array.from({ length: 12 }, (_, depth) => `${'  '.repeat(depth + 5)}- k${depth}:`).join('\n')} 1`,
      ).join('\n') +
      '\n',
    status: 400,
  },
];

describe('price-list input handling is linear', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ config: { quoteBodyLimitBytes: 64 * 1024 * 1024 } });
  });
  afterAll(() => t?.close());

  /** The best of three dry runs of `text`, in milliseconds. */
  async function bestTime(shape: Shape, text: string): Promise<number> {
    let best = Infinity;
    for (let run = 0; run < 3; run += 1) {
      const start = performance.now();
      const response = await apply(t, text, { dry_run: true }, shape.format === 'json' ? 'application/json' : 'application/yaml');
      best = Math.min(best, performance.now() - start);
      expect(response.status, response.text.slice(0, 300)).toBe(shape.status);
    }
    return best;
  }

  it.each(SHAPES)('$format: $name', { timeout: 180_000 }, async (shape) => {
    const small = shape.text(shape.size);
    const large = shape.text(shape.size * 4);
    await apply(t, small, { dry_run: true }, shape.format === 'json' ? 'application/json' : 'application/yaml'); // warm up
    const smallTime = await bestTime(shape, small);
    const largeTime = await bestTime(shape, large);
    // Linear: about 4; quadratic: about 16. A floor of 50 ms keeps a fast small run from deciding.
    expect(
      largeTime / Math.max(smallTime, 50),
      `${small.length} bytes: ${smallTime.toFixed(0)} ms; ${large.length} bytes: ${largeTime.toFixed(0)} ms`,
    ).toBeLessThan(10);
  });
});
