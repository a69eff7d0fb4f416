/**
 * Which folder may import which, checked by `npm run lint`. The layers point
 * one way: a folder may use those below it, never those above, so that a
 * change low down is safe to make without reading what sits on top of it.
 *
 *   main.ts, app.module.ts, cli/          compose everything
 *   bootstrap/                            the HTTP surface (no feature)
 *   orders/, health/                      features
 *   access-records/                       who read whose orders (any feature's reads)
 *   observability/, logging/, rate-limit/, lifecycle/, auth/
 *   database/                             servers, routing, deadlines (no feature)
 *   common/, config/                      foundation
 */
const SRC = '^src/';
/** The folders a layer may import besides itself; anything else under src/ is upward. */
const layer = (name, folder, allowed, why) => ({
  name,
  comment: why,
  severity: 'error',
  from: { path: `^src/${folder}/` },
  to: { path: SRC, pathNot: [`^src/(${[folder, ...allowed].join('|')})/`] },
});

/**
 * Inside the listing (src/orders/): the feature's own files (controller, service, repository, the exports, the
 * decorators) compose its sub-folders, which never import them back. A sub-folder may use the model and the planner's
 * vocabulary at the feature's root, and the sub-folders below it:
 *
 *   export/       an export: its batches, stream   dto/, query/, statements/, and the repository, the
 *                 and bytes                        refusals, the access notes and the page's serializer
 *   query/        parameters into a query          dto/, paging/
 *   statements/   the SQL of a plan                counting/
 *   dto/, paging/, counting/, seeding/             none
 */
const ORDERS_FOUNDATION = [
  'model',
  'order-status',
  'order\\.entity',
  'order-seat\\.entity',
  'order-entities',
  'listing-variant',
  'order-element',
  'index-fit',
  'query-plan',
  'month-branches',
  'replica-indexes',
];
const ordersFolder = (folder, allowed, why, rootFiles = []) => ({
  name: `orders-${folder}`,
  comment: why,
  severity: 'error',
  from: { path: `^src/orders/${folder}/` },
  to: {
    path: '^src/orders/',
    pathNot: [
      `^src/orders/(${[folder, ...allowed].join('|')})/`,
      `^src/orders/(${[...ORDERS_FOUNDATION, ...rootFiles].join('|')})\\.ts$`,
    ],
  },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'A cycle makes two modules one: neither can be read, tested or changed without the other. ' +
        'The entities of one relation are the exception TypeORM is built for (each names the other in a type function).',
      severity: 'error',
      from: { pathNot: '\\.entity\\.ts$' },
      to: { circular: true },
    },
    layer('config-is-foundation', 'config', [], 'Configuration is read by everything, so it reads nothing of ours.'),
    layer(
      'common-is-foundation',
      'common',
      ['config'],
      'Shared pieces (problems, time, HTTP limits) must not know the features that use them.',
    ),
    layer(
      'database-knows-no-feature',
      'database',
      ['common', 'config'],
      'Routing, admission and deadlines serve any feature; a feature registers its own entities.',
    ),
    {
      name: 'database-throws-its-own-errors',
      comment:
        'The database layer says what failed in its own errors; the HTTP edge (src/bootstrap/database-problems.ts) ' +
        'answers them as problems.',
      severity: 'error',
      from: { path: '^src/database/' },
      to: { path: '^src/common/problem/' },
    },
    layer('auth-below-features', 'auth', ['common', 'config'], 'Who the caller is does not depend on what they ask.'),
    layer('lifecycle-below-features', 'lifecycle', ['common', 'config'], 'Shutdown is told to, not told what.'),
    layer(
      'rate-limit-below-features',
      'rate-limit',
      ['common', 'config', 'auth'],
      'The limit counts callers (from auth), never what a feature does.',
    ),
    layer(
      'observability-below-features',
      'observability',
      ['common', 'config', 'auth', 'database'],
      'Metrics and traces observe the database and the caller, not a feature.',
    ),
    layer(
      'logging-below-features',
      'logging',
      ['common', 'config', 'observability', 'auth'],
      'Log lines carry the trace id and the caller, and nothing of a feature.',
    ),
    layer(
      'access-records-below-features',
      'access-records',
      ['common', 'config', 'auth', 'database', 'observability'],
      'Access records keep who read what, from the request and the caller, whatever the feature.',
    ),
    layer(
      'health-is-a-feature',
      'health',
      ['common', 'config', 'database', 'observability', 'lifecycle', 'rate-limit'],
      'The probes may use every lower layer, but not another feature.',
    ),
    layer(
      'orders-is-a-feature',
      'orders',
      ['common', 'config', 'database', 'observability', 'auth', 'rate-limit', 'access-records'],
      'The listing may use every lower layer, but not another feature, the HTTP set-up or the CLI.',
    ),
    layer(
      'bootstrap-knows-no-feature',
      'bootstrap',
      ['common', 'config', 'auth', 'database', 'observability', 'logging', 'lifecycle', 'access-records'],
      'The HTTP surface is the same for any feature; features describe themselves (e.g. @ClosedSchema).',
    ),
    ordersFolder(
      'dto',
      [],
      'The documented shapes of requests and answers read nothing of how they are parsed or sent.',
    ),
    ordersFolder('paging', [], 'Links and continuations work on the model alone.'),
    ordersFolder('counting', [], 'The per-day totals and their fold are below every statement that reads them.'),
    ordersFolder(
      'seeding',
      [],
      'Generated orders are written as the schema takes them, not as the listing reads them.',
    ),
    ordersFolder(
      'export',
      ['dto', 'query', 'statements'],
      'An export reads its batches through the repository and streams them; the controller sits above.',
      ['orders\\.repository', 'read-refusals', 'access-parameters', 'page-json', 'order-row\\.fixture'],
    ),
    ordersFolder(
      'query',
      ['dto', 'paging'],
      'Parameters become a query with the DTOs that validate them and the continuations.',
    ),
    ordersFolder(
      'statements',
      ['counting'],
      'A plan becomes SQL; the counting tables are the only sub-folder it reads.',
    ),
    {
      name: 'src-stands-alone',
      comment: 'The service ships without its tests, benchmarks and tooling.',
      severity: 'error',
      from: { path: SRC },
      to: { path: '^(test|bench|deploy|launchers)/' },
    },
    {
      name: 'launchers-stand-alone',
      comment: 'The throw-away servers are shared by test/, bench/ and deploy/, so they import none of them.',
      severity: 'error',
      from: { path: '^launchers/' },
      to: { path: '^(test|bench|deploy)/' },
    },
    {
      name: 'tools-do-not-borrow-tests',
      comment: 'bench/ and deploy/ share what they need with the tests through launchers/, not test/.',
      severity: 'error',
      from: { path: '^(bench|deploy)/' },
      to: { path: '^test/' },
    },
    {
      name: 'tests-do-not-borrow-tools',
      comment: 'A test that imports a benchmark or the demo stack breaks when they change for their own reasons.',
      severity: 'error',
      from: { path: '^test/' },
      to: { path: '^(bench|deploy)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^test/docs/generated-clients/', '^dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
