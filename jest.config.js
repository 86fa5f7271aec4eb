/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 120000,
  // Tests share one machine's FUSE mounts and ports; two workers fit this 2-core box.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/reporters/json-results.js'],
  globalSetup: '<rootDir>/test/setup/tmpdir-setup.js',
  globalTeardown: '<rootDir>/test/setup/tmpdir-teardown.js',
};
