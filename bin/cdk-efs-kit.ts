#!/usr/bin/env node
import './uv-threadpool'; // first: sizes libuv's pool before any file system call
import { Command, CommanderError } from 'commander';
import { packageVersion } from '../lib/core/package-root';
import * as advise from './commands/advise';
import * as compare from './commands/compare';
import * as doctor from './commands/doctor';
import * as probe from './commands/probe';
import * as seed from './commands/seed';
import { EXIT_BAD_INPUT, exitCodeFor } from './exit-codes';
import { HELP } from './help-defaults';
import { printable } from '../lambda/shared/printable';

/** The `cdk-efs-kit` command line: the same engines the constructs deploy, run on any mount. */
export function buildProgram(): Command {
  const program = new Command('cdk-efs-kit')
    .description('Fast, safe and observable Amazon EFS: seed, probe and compare file systems from any machine, and advise on what they cost.')
    .version(packageVersion())
    // Bad usage is bad input: one line and a pointer to --help, then exit 2 like every other refusal.
    .showHelpAfterError('(run with --help for the options)')
    .exitOverride()
    .configureHelp(HELP);
  seed.register(program);
  probe.register(program);
  compare.register(program);
  advise.register(program);
  doctor.register(program);
  // A word no command takes is an error, not ignored: `--json out.json` once named a file.
  for (const command of program.commands) command.allowExcessArguments(false);
  return program;
}

if (require.main === module) {
  buildProgram().parseAsync(process.argv).catch((err: Error) => {
    if (err instanceof CommanderError) {
      // commander has printed its message (or the help, or the version) already.
      process.exitCode = err.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
      return;
    }
    // Bad input, and a run that could not go on, end in one clear line, not a stack trace (a name
    // from input in it shown escaped, so that it cannot forge another).
    console.error(`cdk-efs-kit: ${printable(err.message)}`);
    process.exitCode = exitCodeFor(err);
  });
}
