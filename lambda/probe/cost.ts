import type { EfsPricing } from '../../lib/cost/efs-pricing';
import type { S3FilesPricing } from '../../lib/cost/s3-files-pricing';
import { elasticAccessUsd, provisionedUsd, SECONDS_PER_MONTH } from '../../lib/cost/efs-cost';
import { s3FilesAccessUsd } from '../../lib/cost/s3-files-cost';
import { addMetered, NOTHING_METERED } from './metering';
import type { ScenarioCost, ScenarioRound } from './result';
import { MiB } from '../shared/sizes';

/** The smallest throughput a file system can provision. */
const MIN_PROVISIONED_MIBPS = 1;

/** What a scenario's rounds metered and what they cost under Elastic and Provisioned throughput, and on S3 Files. */
export function scenarioCost(rounds: ScenarioRound[], pricing: EfsPricing, s3FilesPricing: S3FilesPricing): ScenarioCost {
  const operations = rounds.flatMap((r) => r.operations);
  const metered = operations.reduce((sum, o) => addMetered(sum, o.metered), NOTHING_METERED);
  const seconds = operations.reduce((sum, o) => sum + o.seconds, 0);
  const provisionedMibps = Math.max(MIN_PROVISIONED_MIBPS, seconds > 0 ? metered.meteredIOBytes / MiB / seconds : 0);
  const elasticUsd = elasticAccessUsd(metered, pricing);
  // S3 Files meters each operation as Elastic does, at its own prices, and the sync's export of what
  // was written as a read (each written byte once, as advise counts it).
  const s3Files = s3FilesAccessUsd(metered, metered.dataWriteBytes, s3FilesPricing);
  const s3FilesUsd = s3Files.dataReadUsd + s3Files.dataWriteUsd + s3Files.metadataUsd + s3Files.exportUsd;
  const perMonth = (usd: number) => (seconds > 0 ? (usd / seconds) * SECONDS_PER_MONTH : 0);
  return {
    metered,
    seconds,
    elasticUsd,
    elasticUsdPerMonth: perMonth(elasticUsd),
    s3FilesUsd,
    s3FilesUsdPerMonth: perMonth(s3FilesUsd),
    provisionedMibps,
    provisionedUsd: provisionedUsd(provisionedMibps, 0, seconds, pricing),
    provisionedUsdPerMonth: provisionedUsd(provisionedMibps, 0, SECONDS_PER_MONTH, pricing),
  };
}
