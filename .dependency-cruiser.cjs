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

/**
 * The web console (console/src), bottom to top: api/ (the calls and their generated types) → the
 * modules at its root (session, catalog, validity, …) → components/ and editor/ → editing/ (the
 * rule editor) → pages/<page>/ → app.tsx and main.tsx (the frame and the entry). A layer imports
 * only layers below it.
 */
const consoleLayers = [
  { name: 'api', path: '^console/src/api/' },
  { name: 'shared', path: '^console/src/(?!(app|main)\\.tsx$)[^/]+$' },
  { name: 'components', path: '^console/src/(components|editor)/' },
  { name: 'editing', path: '^console/src/editing/' },
  { name: 'pages', path: '^console/src/pages/' },
  { name: 'app', path: '^console/src/(app|main)\\.tsx$' },
];

const consoleLayerRules = consoleLayers.slice(0, -1).map((layer, index) => {
  const above = consoleLayers.slice(index + 1);
  return {
    name: `console-${layer.name}`,
    comment: `console: ${layer.name} never imports a layer above it (${above.map((upper) => upper.name).join(', ')})`,
    severity: 'error',
    from: { path: layer.path },
    to: { path: above.map((upper) => upper.path) },
  };
});

/** A page's folder never imports another page's: what two pages share moves down a layer. */
const consolePageRule = {
  name: 'console-page-alone',
  comment: 'console: a page folder never imports another page folder',
  severity: 'error',
  from: { path: '^console/src/pages/([^/]+)/' },
  to: { path: '^console/src/pages/', pathNot: '^console/src/pages/$1/' },
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
    {
      name: 'console-not-server',
      comment: 'the console talks to the server over HTTP only: it imports none of its code or tests',
      severity: 'error',
      from: { path: '^console/' },
      to: { path: '^(src|test|bench)/' },
    },
    {
      name: 'server-not-console',
      comment: 'the server serves the built console; it imports none of its code',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^console/' },
    },
    ...consoleLayerRules,
    consolePageRule,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.test.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
