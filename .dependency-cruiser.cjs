/**
 * Import rules (issue 12), checked by `npm run lint`: no cycles, and no folder imports a folder
 * above it. The layers, bottom to top: src/kernel → src/database → src/auth → src/http →
 * src/rating → src/application.ts, src/server.ts, src/cli.ts (the composition root); src/client
 * (the CLI's HTTP client of the price list) stands apart and imports none of them. Inside a
 * layer, a folder may import its sibling folders (rating/hashmap → rating/common) but never the
 * files above it that gather every module (rating/registry.ts, rating/routes.ts).
 */
const layers = {
  kernel: [],
  database: ['kernel'],
  auth: ['kernel', 'database'],
  http: ['kernel', 'database', 'auth'],
  rating: ['kernel', 'database', 'auth', 'http'],
  // The operator's HTTP client (`tariff price-list`): it talks to a server, it never is one.
  client: [],
};

const layerRules = Object.entries(layers).map(([layer, below]) => ({
  name: `layer-${layer}`,
  comment: `src/${layer} may import only ${below.length ? below.map((name) => `src/${name}`).join(', ') + ', ' : ''}itself and src/config.ts`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: '^src/', pathNot: [`^src/${layer}/`, '^src/config\\.ts$', ...below.map((name) => `^src/${name}/`)] },
}));

/**
 * Inside src/rating, a module folder (hashmap/, pyscripts/, …) never imports the files that sit
 * above it and gather every module (registry.ts, routes.ts): modules are plugged in, never the
 * other way round.
 */
const aggregatorRule = {
  name: 'no-upward-import',
  comment: 'a rating folder never imports the registry or the route list above it',
  severity: 'error',
  from: { path: '^src/rating/[^/]+/' },
  to: { path: '^src/rating/(registry|routes)\\.ts$' },
};

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'src-not-tests',
      comment: 'production code never imports tests or benchmarks',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    ...layerRules,
    aggregatorRule,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.test.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
