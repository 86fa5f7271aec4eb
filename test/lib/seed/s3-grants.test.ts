import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'stream';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { openSource } from '../../../lambda/seed/sources/open-source';
import { AccessPointPreset, SeedEngine, SeedSource, SharedFileSystem } from '../../../lib';
import { decide, Request, roleOf, statementsOf } from '../../helpers/iam-policy';
import { Moto, startMoto } from '../../helpers/moto';
import { definitionOf } from '../../helpers/state-machines';

// The seed's S3 grants, evaluated for the requests that really reach S3: the seed handler's own,
// recorded as it lists and reads moto's S3 on 127.0.0.1, and the Distributed Map reader's, as the
// synthesized definition makes them. A grant that looks right but does not hold for the request
// sent (a condition on s3:prefix when no Prefix is sent) fails here.
let moto: Moto;
let s3Client: S3Client;
const sent: Array<{ command: string; input: Record<string, any> }> = [];

beforeAll(async () => {
  moto = await startMoto();
  s3Client = new S3Client(moto.clientConfig);
  s3Client.middlewareStack.add((next, context) => async (args) => {
    sent.push({ command: context.commandName ?? '', input: args.input as Record<string, any> });
    return next(args);
  }, { step: 'initialize' });
  await s3Client.send(new CreateBucketCommand({ Bucket: 'lake' }));
  for (const key of ['index.html', 'site/a.html', 'site/css/b.css', 'sitemap.xml']) {
    await s3Client.send(new PutObjectCommand({ Bucket: 'lake', Key: key, Body: key }));
  }
});
afterAll(() => moto.stop());
beforeEach(() => {
  sent.length = 0;
});

/**
 * The requests the seed handler sends to copy SeedSource.s3(lake, prefix): its listing, and a GET of
 * each object (in Lambda the copy workers send those GETs with clients of their own: the same requests).
 */
async function handlerRequests(prefix: string): Promise<Request[]> {
  const opened = await openSource({ format: 's3-objects', bucket: 'lake', key: prefix }, { client: s3Client });
  for await (const entry of opened.source.entries()) {
    if (entry.type !== 'file') continue;
    const content = await entry.open();
    if (content instanceof Readable) content.destroy();
  }
  await opened.close();
  return sent.map(({ command, input }): Request => {
    if (command === 'ListObjectsV2Command') {
      const context: Record<string, string> = input.Prefix === undefined ? {} : { 's3:prefix': input.Prefix };
      return { action: 's3:ListBucket', resource: 'arn:aws:s3:::lake', context };
    }
    if (command === 'GetObjectCommand') return { action: 's3:GetObject', resource: `arn:aws:s3:::lake/${input.Key}`, context: {} };
    throw new Error(`the handler sent ${command}, which this test does not evaluate`);
  });
}

function synth(prefix: string, engine: SeedEngine) {
  const stack = new Stack(new App(), 'Test');
  const files = new SharedFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
  const bucket = new s3.Bucket(stack, 'Lake');
  files.addSeed('Content', { accessPoint: files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web')), source: SeedSource.s3(bucket, prefix), engine });
  const template = Template.fromStack(stack);
  const names = { [stack.getLogicalId(bucket.node.defaultChild as s3.CfnBucket)]: 'arn:aws:s3:::lake' };
  const of = (handler: string) => {
    // The seed's functions mount the file system (its readiness gate's onEvent does not).
    const fn = Object.values<any>(template.findResources('AWS::Lambda::Function')).find((f) => f.Properties.Handler === handler && f.Properties.FileSystemConfigs);
    return statementsOf(template, roleOf(fn), names);
  };
  return { template, names, of };
}

describe('single-function engine', () => {
  test.each([
    ['the whole bucket (no Prefix sent)', '', 4],
    ['a prefix without its slash (sent as "site/")', 'site', 2],
    ['a prefix with its slash', 'site/', 2],
  ])('the seed function may make every request the handler sends for %s', async (_, prefix, files) => {
    const requests = await handlerRequests(prefix);
    expect(requests.filter((r) => r.action === 's3:GetObject')).toHaveLength(files);
    const policy = synth(prefix, SeedEngine.singleFunction()).of('index.onEvent');
    for (const request of requests) expect([request, decide(policy, request)]).toEqual([request, 'allowed']);
  });

  test('and nothing outside the folder: a prefix "site" does not open "sitemap.xml"', () => {
    const policy = synth('site', SeedEngine.singleFunction()).of('index.onEvent');
    expect(decide(policy, { action: 's3:GetObject', resource: 'arn:aws:s3:::lake/sitemap.xml', context: {} })).toBe('not allowed');
    expect(decide(policy, { action: 's3:ListBucket', resource: 'arn:aws:s3:::lake', context: { 's3:prefix': 'other/' } })).toBe('not allowed');
    expect(decide(policy, { action: 's3:ListBucket', resource: 'arn:aws:s3:::lake', context: {} })).toBe('not allowed');
  });
});

describe('Distributed Map engine', () => {
  /** The ListObjectsV2 request the map's S3 reader makes: its Parameters, as the definition renders them. */
  function readerRequest(template: Template): Request {
    const map = Object.values<any>(definitionOf(template, 'CopyObjects').States)[0];
    const { Prefix } = map.ItemReader.Parameters;
    return { action: 's3:ListBucket', resource: 'arn:aws:s3:::lake', context: Prefix === undefined ? {} : { 's3:prefix': Prefix } };
  }

  test.each([
    ['the whole bucket (no Prefix sent)', ''],
    ['a prefix without its slash', 'site'],
    ['a prefix with its slash', 'site/'],
  ])('the state machine may list %s, as its reader does', (_, prefix) => {
    const { template, names } = synth(prefix, SeedEngine.distributedMap());
    const [machine] = Object.values<any>(template.findResources('AWS::StepFunctions::StateMachine')).filter((m) => JSON.stringify(m).includes('CopyObjects'));
    const policy = statementsOf(template, roleOf(machine), names);
    expect(decide(policy, readerRequest(template))).toBe('allowed');
    if (prefix) expect(decide(policy, { action: 's3:ListBucket', resource: 'arn:aws:s3:::lake', context: { 's3:prefix': 'other/' } })).toBe('denied');
  });

  test.each([['the whole bucket', ''], ['a prefix', 'site']])('the worker may read every object the listing of %s hands it', async (_, prefix) => {
    const gets = (await handlerRequests(prefix)).filter((r) => r.action === 's3:GetObject');
    const policy = synth(prefix, SeedEngine.distributedMap()).of('index.copyBatch');
    for (const request of gets) expect([request, decide(policy, request)]).toEqual([request, 'allowed']);
  });
});
