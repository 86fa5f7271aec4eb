#!/usr/bin/env node
import { Command } from 'commander';
import { packageVersion } from '../lib/private/package-root';

/** The `cdk-efs-kit` command line: the same engines the constructs deploy, run on any mount. */
export function buildProgram(): Command {
  const program = new Command('cdk-efs-kit')
    .description('Fast, safe and observable Amazon EFS: seed, probe and compare file systems from any machine.')
    .version(packageVersion())
    .showHelpAfterError();
  return program;
}

if (require.main === module) {
  buildProgram().parseAsync(process.argv).catch((err: Error) => {
    console.error(`cdk-efs-kit: ${err.message}`);
    process.exitCode = 1;
  });
}
