import { describeResource, identityOf, ofAnotherStack, sameResource } from '../../../lambda/seed/handler/resource-identity';

const BLUE = 'arn:aws:cloudformation:us-east-1:123456789012:stack/Blue/11111111-1111-1111-1111-111111111111';
const GREEN = 'arn:aws:cloudformation:us-east-1:123456789012:stack/Green/22222222-2222-2222-2222-222222222222';
const PLACE = 'seed:fs-0123456789abcdef0:fsap-0123456789abcdef0:/www';

test('a resource is its physical id, stack and logical id', () => {
  const content = identityOf({ StackId: BLUE, LogicalResourceId: 'Content' }, PLACE);
  expect(sameResource(content, identityOf({ StackId: BLUE, LogicalResourceId: 'Content' }, PLACE))).toBe(true);
  expect(sameResource(content, identityOf({ StackId: BLUE, LogicalResourceId: 'Renamed' }, PLACE))).toBe(false);
  expect(sameResource(content, identityOf({ StackId: GREEN, LogicalResourceId: 'Content' }, PLACE))).toBe(false);
  expect(sameResource(content, identityOf({ StackId: BLUE, LogicalResourceId: 'Content' }, `${PLACE}/b`))).toBe(false);
});

test('a claim an earlier version wrote (the physical id alone) is the claim of the resource with that physical id', () => {
  expect(sameResource(PLACE, identityOf({ StackId: BLUE, LogicalResourceId: 'Content' }, PLACE))).toBe(true);
  expect(sameResource(PLACE, identityOf({ StackId: BLUE, LogicalResourceId: 'Content' }, `${PLACE}/b`))).toBe(false);
  expect(ofAnotherStack(PLACE, identityOf({ StackId: GREEN, LogicalResourceId: 'Content' }, PLACE))).toBe(false);
});

test('another stack is told apart only where both claims name their stacks', () => {
  expect(ofAnotherStack(identityOf({ StackId: BLUE, LogicalResourceId: 'Content' }, PLACE), identityOf({ StackId: GREEN, LogicalResourceId: 'Content' }, PLACE))).toBe(true);
  expect(ofAnotherStack(identityOf({ StackId: BLUE, LogicalResourceId: 'Content' }, PLACE), identityOf({ StackId: BLUE, LogicalResourceId: 'Renamed' }, PLACE))).toBe(false);
});

test('messages name the logical id and the stack', () => {
  expect(describeResource(identityOf({ StackId: GREEN, LogicalResourceId: 'Content' }, PLACE))).toBe(`resource Content of stack Green (${GREEN})`);
  expect(describeResource(PLACE)).toBe(`resource ${PLACE}`);
});
