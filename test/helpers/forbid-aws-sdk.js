// Preloaded with `node --require` by tests that check a command does not load the AWS SDK: any
// require of an @aws-sdk package fails the process.
const Module = require('module');
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request.startsWith('@aws-sdk/')) throw new Error(`loaded ${request}`);
  return load.call(this, request, ...rest);
};
