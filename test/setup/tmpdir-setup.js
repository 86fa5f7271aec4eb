// The test run's temporary files (CDK apps' cdk.out directories, fixtures, efs-sim mount points,
// archives spooled by the seed) go in a directory of the run's own, removed when it ends
// (tmpdir-teardown.js): Jest's workers and every process they start inherit TMPDIR.
const fs = require('fs');
const os = require('os');
const path = require('path');

module.exports = async () => {
  globalThis.testRunTmpdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-efs-kit-test-'));
  process.env.TMPDIR = globalThis.testRunTmpdir;
};
