import { seedPropertyProblems } from '../../../lib/seed/contract/resource-properties';
import { invocationClock } from '../../../lambda/seed/handler/invocation-time';

// Seeds share their function, whose timeout is the largest they ask: each request's invocation ends
// at the seed's own timeout (InvocationTimeoutSeconds) or the function's, whichever comes first.
// Date.now is Jest's fake clock, so no figure depends on how busy the machine is.

const NOW = 1_800_000_000_000;
beforeEach(() => jest.useFakeTimers({ now: NOW }));
afterEach(() => jest.useRealTimers());

/** Lambda's context for a function with `timeoutMs`, started at NOW. */
const lambdaContext = (timeoutMs: number) => ({ getRemainingTimeInMillis: () => NOW + timeoutMs - Date.now() });

test('a seed with a shorter timeout than the function\'s ends its invocation at its own', () => {
  const remaining = invocationClock(lambdaContext(900_000), { InvocationTimeoutSeconds: '300' }, NOW);
  expect(remaining()).toBe(300_000);
  jest.advanceTimersByTime(120_000);
  expect(remaining()).toBe(180_000);
});

test('the function\'s own time counts when it is shorter (a function built by an earlier version)', () => {
  expect(invocationClock(lambdaContext(200_000), { InvocationTimeoutSeconds: '900' }, NOW)()).toBe(200_000);
});

test.each([undefined, 'abc', '60', '901', 300])('InvocationTimeoutSeconds %j is not read as a bound: the function\'s own time (a Delete reads leniently)', (value) => {
  expect(invocationClock(lambdaContext(500_000), { InvocationTimeoutSeconds: value }, NOW)()).toBe(500_000);
  expect(invocationClock(lambdaContext(500_000), undefined, NOW)()).toBe(500_000);
});

describe('the property at the trust boundary', () => {
  const valid = { Bucket: 'b', Key: 'k', Format: 's3-objects', Fingerprint: 'f', MountPath: '/mnt/seed', TargetSubPath: '', Concurrency: '64', Prune: 'false', RemoveOnDelete: 'false' };

  test.each(['120', '300', '900', undefined])('%j passes', (value) => {
    expect(seedPropertyProblems({ ...valid, InvocationTimeoutSeconds: value })).toEqual([]);
  });

  test.each(['119', '901', '0', '12.5', '', 'ten', 300])('fails when it is %j, naming the property and its bounds', (value) => {
    expect(seedPropertyProblems({ ...valid, InvocationTimeoutSeconds: value }))
      .toEqual([`InvocationTimeoutSeconds must be a whole number of seconds from 120 to 900, got ${JSON.stringify(value)}`]);
  });
});
