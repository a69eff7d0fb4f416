/**
 * Three tiers, each runnable alone (docs/DEVELOPING.md, "Tests"); `npm test` runs all of them.
 *
 * - unit: no I/O beyond files;
 * - contract: docs/API.md's behaviour, by the service in this process on the embedded database, and the tools that
 *   read its OpenAPI document;
 * - infrastructure: what needs a server of its own: MariaDB primaries and replicas, Redis, HAProxy, Prometheus,
 *   podman, Chromium, Kubernetes' manifests, the built service as production starts it.
 *
 * Only the infrastructure tier builds the service and starts (or finds) MariaDB, in its global setup: a suite of the
 * contract tier that needed MariaDB would fail there, not skip.
 */
const CONTRACT_SUITES = [
  'test/e2e/orders.sqlite.e2e-spec.ts',
  'test/e2e/auth-modes.e2e-spec.ts',
  'test/e2e/identity-providers.e2e-spec.ts',
  'test/e2e/cli.e2e-spec.ts',
  'test/reliability/limits.e2e-spec.ts',
  'test/reliability/configuration.e2e-spec.ts',
  'test/docs/documents.e2e-spec.ts',
  'test/docs/generated-clients.e2e-spec.ts',
];

/** TypeScript through SWC as native ES modules (Nest 12 ships ESM only); content-disposition is CommonJS. */
const base = {
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'es6' },
      },
    ],
    '/node_modules/content-disposition/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['^(?!.*/node_modules/content-disposition/).*/node_modules/'],
};

const escaped = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export default {
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/support/**/*.spec.ts'],
    },
    {
      ...base,
      displayName: 'contract',
      testMatch: CONTRACT_SUITES.map((path) => `<rootDir>/${path}`),
    },
    {
      ...base,
      displayName: 'infrastructure',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...CONTRACT_SUITES.map((path) => `/${escaped(path)}$`)],
      globalSetup: '<rootDir>/test/support/jest/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/jest/global-teardown.ts',
    },
  ],
};
