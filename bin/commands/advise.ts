import * as fs from 'fs';
import { Command } from 'commander';
import { EfsPricing, EfsPricingProps } from '../../lib/cost/efs-pricing';
import { jsonOption, markdownOption, OutputOptions } from '../output-options';
import { outputLayout } from '../report/text-layout';

/** CloudWatch keeps 1-minute data for 15 days; the window stays inside it. */
const MAX_DAYS = 14;

/** `cdk-efs-kit advise fs-…`: what the last days of traffic would have cost under each throughput mode, from CloudWatch. */
export function register(program: Command): void {
  program.command('advise')
    .description('read a file system\'s last days of AWS/EFS metrics and show what its traffic would have cost under Elastic, Provisioned and Bursting throughput, storage with and without an IA lifecycle, and the mode to choose')
    .argument('<file-system-id>', 'the file system, e.g. fs-0123456789abcdef0')
    .option('--days <n>', `days of metrics, 1-${MAX_DAYS} (CloudWatch keeps 1-minute data for 15 days)`, '14')
    .option('--end <time>', 'end of the window, ISO 8601 (default: now)')
    .option('--region <region>', 'AWS Region (default: AWS_REGION, or the profile\'s)')
    .option('--profile <name>', 'named profile of the AWS config files (default: AWS_PROFILE)')
    .option('--endpoint <url>', 'CloudWatch endpoint, e.g. a local test server')
    .option('--prices <file>', 'JSON price list with the fields of EfsPricing.custom, for another Region or negotiated rates (default: us-east-1 list prices)')
    .option('--one-zone', 'price storage as One Zone')
    .option('--cold-percent <n>', 'for a file system with no IA data yet: the share of it an IA lifecycle would move, %', '80')
    .addOption(jsonOption('the advice'))
    .addOption(markdownOption())
    .option('--html <file>', 'also write a self-contained HTML report')
    .addHelpText('after', `
Examples:
  $ cdk-efs-kit advise fs-0123456789abcdef0 --region eu-west-1 --profile prod
  $ cdk-efs-kit advise fs-0123456789abcdef0 --days 7 --prices eu-west-1-prices.json --json
  $ cdk-efs-kit advise fs-0123456789abcdef0 --html advice.html`)
    .action(async (fileSystemId: string, opts: AdviseCliOptions) => {
      const input = checkInput(fileSystemId, opts);
      // Loaded here, not at start: every `cdk-efs-kit` command would pay for them.
      const { readUsage } = await import('../advise/read-usage');
      const { advise } = await import('../advise/advice');
      const usage = await readUsage(fileSystemId, input.start, input.end, { region: opts.region, profile: opts.profile, endpoint: opts.endpoint });
      const advice = advise(usage, { pricing: input.pricing, oneZone: opts.oneZone === true, coldPercent: input.coldPercent });
      console.log(opts.json ? JSON.stringify(advice, null, 2) : (await import('../report/advice-table')).renderAdviceTable(advice, outputLayout(opts)));
      if (opts.html) fs.writeFileSync(opts.html, (await import('../report/advice-html')).renderAdviceHtml(advice));
    });
}

interface AdviseCliOptions extends OutputOptions {
  days: string;
  end?: string;
  region?: string;
  profile?: string;
  endpoint?: string;
  prices?: string;
  oneZone?: boolean;
  coldPercent: string;
  html?: string;
}

/** Every option checked before anything is read: a bad one ends the command with one line naming it. */
function checkInput(fileSystemId: string, opts: AdviseCliOptions) {
  if (!/^fs-[0-9a-f]{8,40}$/.test(fileSystemId)) {
    throw new Error(`'${fileSystemId}' is not a file system id: expected fs- and 8 to 40 hex digits, e.g. fs-0123456789abcdef0`);
  }
  const days = wholeNumber(opts.days, 1, MAX_DAYS, `--days must be a whole number of days from 1 to ${MAX_DAYS} (CloudWatch keeps 1-minute data for 15 days)`);
  const coldPercent = wholeNumber(opts.coldPercent, 0, 100, '--cold-percent must be a whole number from 0 to 100');
  const endTime = opts.end === undefined ? Date.now() : Date.parse(opts.end);
  if (Number.isNaN(endTime) || (opts.end !== undefined && !/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(opts.end))) {
    throw new Error(`--end must be a date and time such as 2026-11-24T00:00:00Z; got '${opts.end}'`);
  }
  if (opts.endpoint !== undefined && !/^https?:\/\/[^/\s]+/.test(opts.endpoint)) throw new Error(`--endpoint must be an http or https URL; got '${opts.endpoint}'`);
  // Whole minutes: the metrics' resolution, and the slots the advice counts in.
  const end = new Date(Math.floor(endTime / 60_000) * 60_000);
  const start = new Date(end.getTime() - days * 86_400_000);
  return { start, end, coldPercent, pricing: opts.prices === undefined ? EfsPricing.US_EAST_1 : pricesFrom(opts.prices) };
}

function wholeNumber(value: string, min: number, max: number, problem: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new Error(`${problem}; got '${value}'`);
  return n;
}

function pricesFrom(file: string): EfsPricing {
  try {
    return EfsPricing.custom(JSON.parse(fs.readFileSync(file, 'utf8')) as EfsPricingProps);
  } catch (err) {
    throw new Error(`--prices ${file}: ${(err as Error).message}`);
  }
}
