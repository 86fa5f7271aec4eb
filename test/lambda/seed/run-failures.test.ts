import { countingFailedRuns } from '../../../lambda/seed/handler/metrics';
import type { SeedEvent } from '../../../lambda/seed/handler/seed-event';

// A failed request of a seed's custom resource is counted under the seed's name (SeedRunsFailed, as
// EMF on stdout): the seed functions serve every seed on their access point, so their Errors metric
// cannot say whose request failed.

let printed: string[];
beforeEach(() => {
  printed = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => {
    printed.push(String(chunk));
    return true;
  });
});
afterEach(() => jest.restoreAllMocks());

const emf = () => printed.join('').split('\n').filter((line) => line.includes('"_aws"')).map((line) => JSON.parse(line));
const event = (properties: Record<string, unknown>): SeedEvent => ({ RequestType: 'Update', LogicalResourceId: 'FilesSiteABCD1234', ResourceProperties: properties as any });

test('a request that fails counts one SeedRunsFailed for its seed and fails as it did', async () => {
  await expect(countingFailedRuns(event({ MetricsName: 'App/Files/Site' }), async () => {
    throw new Error('seed: the copy did not finish within the deploy\'s time limit');
  })).rejects.toThrow('seed: the copy did not finish within the deploy\'s time limit');
  const [metric] = emf();
  expect(metric).toMatchObject({ Seed: 'App/Files/Site', service: 'cdk-efs-kit-seed', SeedRunsFailed: 1 });
  expect(metric._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'CdkEfsKit', Dimensions: [['service', 'Seed']], Metrics: [{ Name: 'SeedRunsFailed', Unit: 'Count' }] });
});

test('a request that succeeds counts nothing', async () => {
  await expect(countingFailedRuns(event({ MetricsName: 'App/Files/Site' }), async () => ({ IsComplete: true }))).resolves.toEqual({ IsComplete: true });
  expect(emf()).toEqual([]);
});

test('without a usable MetricsName (a hand-edited template), the failure is counted under the logical id', async () => {
  await expect(countingFailedRuns(event({ MetricsName: 42 }), async () => {
    throw new Error('invalid seed properties');
  })).rejects.toThrow('invalid seed properties');
  expect(emf()[0]).toMatchObject({ Seed: 'FilesSiteABCD1234', SeedRunsFailed: 1 });
});
