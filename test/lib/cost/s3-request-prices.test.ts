import { LISTED_S3_REQUEST_PRICES, s3RequestsUsd, s3RequestTier } from '../../../lib/cost/s3-request-prices';

const prices = LISTED_S3_REQUEST_PRICES['us-east-1'];

test('the us-east-1 S3 Standard request prices carry their date and source', () => {
  expect(prices).toMatchObject({ checked: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), putCopyPostListPer1000: 0.005, getAndOtherPer1000: 0.0004 });
  expect(prices.source).toContain('docs/cost.md');
});

test('request kinds go to their tier: PUT, COPY, POST, LIST and uploads the first, DELETE free, the rest the second', () => {
  expect(['put', 'PutObject', 'copy', 'CopyObject', 'list', 'ListObjectVersions', 'UploadPart', 'CreateMultipartUpload'].map(s3RequestTier)).toEqual(Array(8).fill('putCopyPostList'));
  expect(['get', 'GetObject', 'HeadObject'].map(s3RequestTier)).toEqual(Array(3).fill('getAndOther'));
  expect(['delete', 'DeleteObjects'].map(s3RequestTier)).toEqual(['free', 'free']);
});

test('requests are priced per 1,000 at their tier', () => {
  const usd = s3RequestsUsd({ PutObject: 2000, list: 52, get: 2000, delete: 1362 }, prices);
  expect(usd.putCopyPostListUsd).toBeCloseTo((2052 / 1000) * 0.005, 10);
  expect(usd.getAndOtherUsd).toBeCloseTo((2000 / 1000) * 0.0004, 10);
});
