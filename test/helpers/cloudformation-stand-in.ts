import * as http from 'http';
import { AddressInfo } from 'net';

/**
 * A stand-in for CloudFormation's ListStackResources and DescribeStackResource, on 127.0.0.1:
 * CloudFormation cannot run here, and moto's answers to DescribeStackResource carry no Metadata
 * (the seed's Delete reads the place a resource serves from it). Shaped from the API reference
 * (https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/): the Query protocol (POST /,
 * a form body with Action, Version 2010-05-15 and the parameters, a SigV4 Authorization for
 * `cloudformation`), XML answers in the 2010-05-15 namespace; ListStackResources pages its
 * StackResourceSummaries (LogicalResourceId, PhysicalResourceId, ResourceType, ResourceStatus,
 * LastUpdatedTimestamp; no Metadata) by `pageSize` with NextToken; DescribeStackResource answers a
 * StackResourceDetail with Metadata, the JSON of the resource's Metadata attribute as a string. A
 * stack it does not hold is a ValidationError (400) "Stack with id <id> does not exist", as
 * CloudFormation says it. The stacks are the test's: put() a resource, status() moves it on.
 */
export interface StandInResource {
  readonly logicalId: string;
  readonly type: string;
  readonly physicalId?: string;
  status: string;
  readonly metadata?: Record<string, unknown>;
}

export interface CloudFormationStandIn {
  readonly url: string;
  /** Every request's Action and StackName, in order. */
  readonly requests: Array<{ action: string; stackName: string }>;
  put(stackId: string, resource: StandInResource): void;
  status(stackId: string, logicalId: string, status: string): void;
  close(): Promise<void>;
}

const NAMESPACE = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

export async function startCloudFormationStandIn(options: { pageSize?: number } = {}): Promise<CloudFormationStandIn> {
  const pageSize = options.pageSize ?? 100;
  const stacks = new Map<string, Map<string, StandInResource>>();
  const requests: CloudFormationStandIn['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, xml: string) => {
        res.writeHead(status, { 'content-type': 'text/xml' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`);
      };
      const error = (status: number, code: string, message: string) =>
        answer(status, `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${escape(message)}</Message></Error><RequestId>stand-in</RequestId></ErrorResponse>`);
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const auth = String(req.headers.authorization ?? '');
      if (req.method !== 'POST' || !String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded') || form.get('Version') !== '2010-05-15') {
        return error(400, 'InvalidAction', 'not a CloudFormation Query request');
      }
      if (!/^AWS4-HMAC-SHA256 Credential=[A-Za-z0-9]+\/\d{8}\/[a-z0-9-]+\/cloudformation\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/.test(auth)) {
        return error(403, 'MissingAuthenticationToken', 'no SigV4 signature for cloudformation');
      }
      const action = form.get('Action') ?? '';
      const stackName = form.get('StackName') ?? '';
      requests.push({ action, stackName });
      const stack = stacks.get(stackName);
      if (!stack) return error(400, 'ValidationError', `Stack with id ${stackName} does not exist`);
      const shortName = /:stack\/([^/]+)\//.exec(stackName)?.[1] ?? stackName;
      const fields = (r: StandInResource) => `<LogicalResourceId>${escape(r.logicalId)}</LogicalResourceId>`
        + (r.physicalId ? `<PhysicalResourceId>${escape(r.physicalId)}</PhysicalResourceId>` : '')
        + `<ResourceType>${escape(r.type)}</ResourceType><ResourceStatus>${r.status}</ResourceStatus><LastUpdatedTimestamp>2026-11-28T12:00:00.000Z</LastUpdatedTimestamp>`;
      if (action === 'ListStackResources') {
        const all = [...stack.values()];
        const start = Number(form.get('NextToken') ?? 0);
        const page = all.slice(start, start + pageSize);
        const next = start + pageSize < all.length ? `<NextToken>${start + pageSize}</NextToken>` : '';
        return answer(200, `<ListStackResourcesResponse xmlns="${NAMESPACE}"><ListStackResourcesResult><StackResourceSummaries>`
          + page.map((r) => `<member>${fields(r)}</member>`).join('')
          + `</StackResourceSummaries>${next}</ListStackResourcesResult><ResponseMetadata><RequestId>stand-in</RequestId></ResponseMetadata></ListStackResourcesResponse>`);
      }
      if (action === 'DescribeStackResource') {
        const resource = stack.get(form.get('LogicalResourceId') ?? '');
        if (!resource) return error(400, 'ValidationError', `Resource ${form.get('LogicalResourceId')} does not exist for stack ${shortName}`);
        const metadata = resource.metadata ? `<Metadata>${escape(JSON.stringify(resource.metadata))}</Metadata>` : '';
        return answer(200, `<DescribeStackResourceResponse xmlns="${NAMESPACE}"><DescribeStackResourceResult><StackResourceDetail>`
          + `<StackId>${escape(stackName)}</StackId><StackName>${escape(shortName)}</StackName>${fields(resource)}${metadata}`
          + '</StackResourceDetail></DescribeStackResourceResult><ResponseMetadata><RequestId>stand-in</RequestId></ResponseMetadata></DescribeStackResourceResponse>');
      }
      return error(400, 'InvalidAction', `${action} is not served by this stand-in`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    put: (stackId, resource) => {
      if (!stacks.has(stackId)) stacks.set(stackId, new Map());
      stacks.get(stackId)!.set(resource.logicalId, resource);
    },
    status: (stackId, logicalId, status) => { stacks.get(stackId)!.get(logicalId)!.status = status; },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
