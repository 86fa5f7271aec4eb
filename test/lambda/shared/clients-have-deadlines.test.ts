import * as fs from 'fs';
import * as path from 'path';

// Every AWS SDK client a handler makes ends its requests (lambda/shared/aws-call-deadline.ts): the SDK
// sets no request timeout by default, and a stalled endpoint would hold a call until Lambda kills the
// invocation with "Task timed out". What each timeout does against a stalled endpoint is tested in
// aws-call-deadline.test.ts and s3-faults.test.ts; this finds every client, so a new one cannot go
// without.
const LAMBDA = path.join(__dirname, '..', '..', '..', 'lambda');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Each `new XxxClient(...)` with the text of its argument, up to the matching parenthesis. */
function clientConstructions(file: string): Array<{ client: string; options: string }> {
  const text = fs.readFileSync(file, 'utf8');
  const found: Array<{ client: string; options: string }> = [];
  for (const match of text.matchAll(/new (\w+Client)\(/g)) {
    let depth = 1;
    let i = match.index! + match[0].length;
    for (; i < text.length && depth > 0; i++) depth += text[i] === '(' ? 1 : text[i] === ')' ? -1 : 0;
    found.push({ client: match[1], options: text.slice(match.index! + match[0].length, i - 1) });
  }
  return found;
}

test('every SDK client of every handler has a request timeout', () => {
  const clients = sources(LAMBDA).flatMap((file) => clientConstructions(file).map((c) => ({ file: path.relative(LAMBDA, file), ...c })));
  expect(clients.map((c) => c.client).sort()).toEqual(['CloudFormationClient', 'DataSyncClient', 'EFSClient', 'PricingClient', 'S3Client', 'S3Client', 'SFNClient']);
  const without = clients.filter((c) => !/requestHandler: boundedRequests\(/.test(c.options) && !/requestTimeout: \w+,[\s\S]*throwOnRequestTimeout: true/.test(c.options));
  expect(without).toEqual([]);
});
