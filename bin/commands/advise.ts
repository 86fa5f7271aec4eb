import * as fs from 'fs';
import { Command, Option } from 'commander';
import { EfsPricing, EfsPricingProps } from '../../lib/cost/efs-pricing';
import { S3FilesPricing, S3FilesPricingProps } from '../../lib/cost/s3-files-pricing';
import { DEFAULT_CACHE_HIT_PERCENT, DEFAULT_HOT_PERCENT } from '../advise/s3-files-estimate';
import { jsonOption, markdownOption, OutputOptions } from '../output-options';
import { outputLayout } from '../report/text-layout';

/** CloudWatch keeps 1-minute data for 15 days; the window stays inside it. */
const MAX_DAYS = 14;


/** `cdk-efs-kit advise fs-…`: what the last days of traffic would have cost under each throughput mode and on S3 Files, from CloudWatch. */
export function register(program: Command): void {
  program.command('advise')
    .description('read a file system\'s last days of metrics (AWS/EFS, or AWS/S3/Files for an S3 Files file system) and show what its traffic would have cost '
      + 'under Elastic, Provisioned and Bursting throughput and on S3 Files, storage with and without an IA lifecycle, and the EFS mode to choose')
    .argument('<file-system-id>', 'the file system, e.g. fs-0123456789abcdef0')
    .addOption(new Option('--kind <kind>', 'what the file system is: efs, or s3files (Amazon S3 Files, whose ids are fs-… too) '
      + '(default: the one whose namespace, AWS/EFS or AWS/S3/Files, has its metrics)').choices(['efs', 's3files']))
    .option('--days <n>', `days of metrics, 1-${MAX_DAYS} (CloudWatch keeps 1-minute data for 15 days)`, '14')
    .option('--end <time>', 'end of the window, ISO 8601 (default: now)')
    .option('--region <region>', 'AWS Region (default: AWS_REGION, or the profile\'s)')
    .option('--profile <name>', 'named profile of the AWS config files (default: AWS_PROFILE)')
    .option('--endpoint <url>', 'CloudWatch endpoint, e.g. a local test server')
    .option('--prices <file>', 'JSON price list with the fields of EfsPricing.custom, for another Region or negotiated rates (default: us-east-1 list prices)')
    .option('--one-zone', 'price storage as One Zone')
    .option('--cold-percent <n>', 'for a file system with no IA data yet: the share of it an IA lifecycle would move, %', '80')
    .option('--s3-files-prices <file>', 'JSON price list with the fields of S3FilesPricing.custom (default: us-east-1 S3 Files list prices)')
    .option('--hot-percent <n>', 'the share of the data on S3 Files\' high-performance storage, %; all of it is in the bucket. '
      + 'For an S3 Files file system: its StorageBytes over this share is the data set', String(DEFAULT_HOT_PERCENT))
    .option('--cache-hit-percent <n>', 'for an EFS file system: the share of its data reads S3 Files would serve from its high-performance storage '
      + `(the rest stream from the bucket, with no data charge), % (default: ${DEFAULT_CACHE_HIT_PERCENT})`)
    .addOption(jsonOption('the advice'))
    .addOption(markdownOption())
    .option('--html <file>', 'also write a self-contained HTML report')
    .addHelpText('after', `
Examples:
  $ cdk-efs-kit advise fs-0123456789abcdef0 --region eu-west-1 --profile prod
  $ cdk-efs-kit advise fs-0123456789abcdef0 --days 7 --prices eu-west-1-prices.json --json
  $ cdk-efs-kit advise fs-0123456789abcdef0 --html advice.html
  $ cdk-efs-kit advise fs-0123456789abcdef0 --cache-hit-percent 60 --hot-percent 10
  $ cdk-efs-kit advise fs-0123456789abcdef01 --kind s3files --s3-files-prices s3-files-prices.json`)
    .action(async (fileSystemId: string, opts: AdviseCliOptions) => {
      const input = checkInput(fileSystemId, opts);
      const target = { region: opts.region, profile: opts.profile, endpoint: opts.endpoint };
      // Loaded here, not at start: every `cdk-efs-kit` command would pay for them.
      const { detectKind } = await import('../advise/file-system-kind');
      const { adviseOnEfs, adviseOnS3Files } = await import('../advise/advice');
      const kind = opts.kind ?? await detectKind(fileSystemId, input.start, input.end, target);
      const options = { pricing: input.pricing, oneZone: opts.oneZone === true, coldPercent: input.coldPercent, s3Files: input.s3Files };
      let advice;
      if (kind === 's3files') {
        if (opts.cacheHitPercent !== undefined) {
          throw new Error(`--cache-hit-percent applies to an EFS file system's reads; ${fileSystemId} is an S3 Files file system, whose metrics count only the reads it served`);
        }
        const { readS3FilesUsage } = await import('../advise/read-s3-files-usage');
        advice = adviseOnS3Files(await readS3FilesUsage(fileSystemId, input.start, input.end, target), options);
      } else {
        const { readUsage } = await import('../advise/read-usage');
        advice = { ...adviseOnEfs(await readUsage(fileSystemId, input.start, input.end, target), options), kind };
      }
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
  kind?: 'efs' | 's3files';
  s3FilesPrices?: string;
  hotPercent: string;
  cacheHitPercent?: string;
  html?: string;
}

/** Every option checked before anything is read: a bad one ends the command with one line naming it. */
function checkInput(fileSystemId: string, opts: AdviseCliOptions) {
  if (!/^fs-[0-9a-f]{8,40}$/.test(fileSystemId)) {
    throw new Error(`'${fileSystemId}' is not a file system id: expected fs- and 8 to 40 hex digits, e.g. fs-0123456789abcdef0`);
  }
  const days = wholeNumber(opts.days, 1, MAX_DAYS, `--days must be a whole number of days from 1 to ${MAX_DAYS} (CloudWatch keeps 1-minute data for 15 days)`);
  const coldPercent = wholeNumber(opts.coldPercent, 0, 100, '--cold-percent must be a whole number from 0 to 100');
  const hotPercent = wholeNumber(opts.hotPercent, 1, 100, '--hot-percent must be a whole number from 1 to 100');
  const cacheHitPercent = wholeNumber(opts.cacheHitPercent ?? String(DEFAULT_CACHE_HIT_PERCENT), 0, 100, '--cache-hit-percent must be a whole number from 0 to 100');
  const endTime = opts.end === undefined ? Date.now() : Date.parse(opts.end);
  if (Number.isNaN(endTime) || (opts.end !== undefined && !/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(opts.end))) {
    throw new Error(`--end must be a date and time such as 2026-11-24T00:00:00Z; got '${opts.end}'`);
  }
  if (opts.endpoint !== undefined && !/^https?:\/\/[^/\s]+/.test(opts.endpoint)) throw new Error(`--endpoint must be an http or https URL; got '${opts.endpoint}'`);
  // Whole minutes: the metrics' resolution, and the slots the advice counts in.
  const end = new Date(Math.floor(endTime / 60_000) * 60_000);
  const start = new Date(end.getTime() - days * 86_400_000);
  return {
    start,
    end,
    coldPercent,
    pricing: opts.prices === undefined ? EfsPricing.US_EAST_1 : pricesFrom('--prices', opts.prices, (p: EfsPricingProps) => EfsPricing.custom(p)),
    s3Files: {
      pricing: opts.s3FilesPrices === undefined
        ? S3FilesPricing.forRegion('us-east-1')!
        : pricesFrom('--s3-files-prices', opts.s3FilesPrices, (p: S3FilesPricingProps) => S3FilesPricing.custom(p)),
      hotPercent,
      cacheHitPercent,
    },
  };
}

function wholeNumber(value: string, min: number, max: number, problem: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new Error(`${problem}; got '${value}'`);
  return n;
}

/** A price list from a JSON file of its `custom` fields; any problem names the option and the file. */
function pricesFrom<P, T>(option: string, file: string, custom: (props: P) => T): T {
  try {
    return custom(JSON.parse(fs.readFileSync(file, 'utf8')) as P);
  } catch (err) {
    throw new Error(`${option} ${file}: ${(err as Error).message}`);
  }
}
