import type { EfsPricing } from '../../lib/cost/efs-pricing';
import { elasticAccessUsd, provisionedUsd, SECONDS_PER_MONTH } from '../../lib/cost/efs-cost';
import { addMetered, NOTHING_METERED } from './metering';
import type { ScenarioCost, ScenarioRound } from './result';
import { MiB } from '../shared/sizes';

/** The smallest throughput a file system can provision. */
const MIN_PROVISIONED_MIBPS = 1;

/** What a scenario's rounds metered and what they cost under Elastic and Provisioned throughput. */
export function scenarioCost(rounds: ScenarioRound[], pricing: EfsPricing): ScenarioCost {
  const operations = rounds.flatMap((r) => r.operations);
  const metered = operations.reduce((sum, o) => addMetered(sum, o.metered), NOTHING_METERED);
  const seconds = operations.reduce((sum, o) => sum + o.seconds, 0);
  const provisionedMibps = Math.max(MIN_PROVISIONED_MIBPS, seconds > 0 ? metered.meteredIOBytes / MiB / seconds : 0);
  return {
    metered,
    seconds,
    elasticUsd: elasticAccessUsd(metered, pricing),
    provisionedMibps,
    provisionedUsd: provisionedUsd(provisionedMibps, 0, seconds, pricing),
    provisionedUsdPerMonth: provisionedUsd(provisionedMibps, 0, SECONDS_PER_MONTH, pricing),
  };
}
