// Three projects, which `npm test` runs together (`npx jest --selectProjects unit` runs one):
//   unit         constructs, handlers' logic and the command line on temporary directories;
//   integration  the suites that start efs-sim (FUSE: root and /dev/fuse) or moto's server (.venv);
//   package      the packed package as users get it: the tarball, its install on the lowest and the
//                newest aws-cdk-lib, the two-copies check, the Python wheel, the Go and Java
//                bindings, Node.js 22 and 24.
// A suite is in unit unless listed below; efs-sim and moto refuse to start in the unit project
// (test/helpers/test-project.ts), so a suite that needs them cannot stay there unnoticed.

const INTEGRATION = [
  'advise-cli', 'demo', 'doctor', 'efs-sim', 'mount-checks', 'mount-readiness', 'probe-efs-sim', 'seed-batch-worker',
  'seed-containment', 'seed-efs-sim', 'seed-handler', 'seed-hostile', 'seed-hostile-archives', 'seed-lifecycle',
  'seed-s3', 'seed-s3-faults', 'seed-s3-grants', 'seed-workers', 'sfn-run', 'sfn-run-lifecycle',
];
const PACKAGE = ['go', 'java', 'node-lines', 'package', 'peer-range', 'python', 'type-checks'];

const suites = (names) => names.map((name) => `<rootDir>/test/${name}.test.ts`);
const project = (displayName, options) => ({
  displayName,
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  globals: { testProject: displayName },
  ...options,
});

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    project('unit', {
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...[...INTEGRATION, ...PACKAGE].map((name) => `/test/${name}\\.test\\.ts$`)],
    }),
    project('integration', { testMatch: suites(INTEGRATION) }),
    project('package', { testMatch: suites(PACKAGE) }),
  ],
  // A guard against hangs, not a speed check: the slowest tests (the probe's getattr case on efs-sim
  // pays 47 s of configured round trips) take about a minute on a machine at full load.
  testTimeout: 300000,
  // Tests share one machine's FUSE mounts and ports; two workers fit this 2-core box.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/reporters/json-results.js'],
  globalSetup: '<rootDir>/test/setup/tmpdir-setup.js',
  globalTeardown: '<rootDir>/test/setup/tmpdir-teardown.js',
};
