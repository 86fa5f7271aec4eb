// Three projects, which `npm test` runs together (`npx jest --selectProjects unit` runs one):
//   unit         constructs, handlers' logic and the command line on temporary directories;
//   integration  the suites that start efs-sim (FUSE: root and /dev/fuse) or moto's server (.venv);
//   package      the packed package as users get it: the tarball, its install on the lowest and the
//                newest aws-cdk-lib, the two-copies check, the Python wheel, the Go and Java
//                bindings, Node.js 22 and 24.
// A suite is in unit unless listed below; efs-sim and moto refuse to start in the unit project
// (test/helpers/test-project.ts), so a suite that needs them cannot stay there unnoticed.

// Suites are named by their path under test/ without '.test.ts'; a name ending in '/' is a folder.
// test/ mirrors the source: test/lib/<capability>, test/lambda/<handler>, test/bin, and test/package
// for the packed package (all of it in the package project).
const INTEGRATION = [
  'bin/commands/advise', 'bin/commands/doctor', 'bin/commands/doctor-s3-files', 'examples/demo', 'examples/demo-s3-files', 'examples/synth-meets-handlers', 'lambda/mount-readiness/readiness', 'lambda/mount-readiness/s3-files', 'lambda/probe/efs-sim', 'lambda/probe/s3-files-scenarios',
  'lambda/seed/batch-worker', 'lambda/seed/containment', 'lambda/seed/copy-workers', 'lambda/seed/efs-sim', 'lambda/seed/handler',
  'lambda/seed/hostile', 'lambda/seed/hostile-archives', 'lambda/seed/lifecycle', 'lambda/seed/moved-directory', 'lambda/seed/native-seed', 'lambda/seed/own-names', 'lambda/seed/s3', 'lambda/seed/s3-faults',
  'lambda/seed/source-boundary', 'lambda/seed/trust-boundary',
  'lambda/seed-bucket/', 'lambda/seed-s3-files/', 'lambda/seed-distributed-map-run/', 'lambda/shared/mount-checks', 'lib/seed/s3-grants', 'tools/efs-sim', 'tools/efs-sim-s3files',
];
const PACKAGE = ['package/'];

const pattern = (name) => (name.endsWith('/') ? `/test/${name}` : `/test/${name}\\.test\\.ts$`);
const suites = (names) => names.map((name) => (name.endsWith('/') ? `<rootDir>/test/${name}**/*.test.ts` : `<rootDir>/test/${name}.test.ts`));
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
      testPathIgnorePatterns: ['/node_modules/', ...[...INTEGRATION, ...PACKAGE].map(pattern)],
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
