import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import * as zlib from 'zlib';
import { renderHtmlReport } from '../../../bin/report/html-report';
import type { OperationSummary, ProbeResult, ScenarioCost, ScenarioResult } from '../../../lambda/probe/result';
import type { Spread } from '../../../lambda/probe/stats';

const exec = promisify(execFile);

/** A figure that varied ±10 % over the rounds. */
const around = (mean: number): Spread => ({ mean, min: mean * 0.9, max: mean * 1.1, stdev: mean * 0.05 });

function operation(name: string, p50Ms: number, p99Ms: number, opsPerSecond: number, bytesPerOperation: number): OperationSummary {
  return {
    operation: name, count: 30, errors: 0,
    opsPerSecond: around(opsPerSecond),
    bytesPerSecond: around(opsPerSecond * bytesPerOperation),
    latencyMs: { p50: around(p50Ms), p90: around((p50Ms + p99Ms) / 2), p99: around(p99Ms), max: around(p99Ms * 1.5) },
  };
}

/** A run that wrote 10 MiB and 2 MiB of metadata in `seconds`. */
function cost(seconds: number): ScenarioCost {
  const MiB = 1024 * 1024;
  return {
    metered: { dataReadBytes: 0, dataWriteBytes: 10 * MiB, metadataReadBytes: MiB, metadataWriteBytes: MiB, meteredIOBytes: 12 * MiB },
    seconds, elasticUsd: 0.000684, provisionedMibps: 12 / seconds, provisionedUsd: 0.0000366, provisionedUsdPerMonth: 36 / seconds,
  };
}

function scenario(name: string, summary: OperationSummary[], findings: ScenarioResult['findings'] = {}, seconds = 2): ScenarioResult {
  return { scenario: name, reproduces: `seed 004: the ${name} figure`, params: { files: 10 }, rounds: [], summary, findings, errorMessages: [], cost: cost(seconds) };
}

function probeResult(label: string, slowdown: number, scenarios?: ScenarioResult[]): ProbeResult {
  return {
    status: 'ok', tool: 'cdk-efs-kit probe', version: '0.1.0', label, target: '/mnt/efs', fileSystemId: 'fs-123',
    startedAt: '2025-01-01T00:00:00.000Z', seconds: 12, rounds: 3, pauseSeconds: 0,
    budget: { maxBytes: 1e9, maxSeconds: null, plannedBytes: 1e7, estimatedSeconds: null },
    pricing: 'test prices',
    scenarios: scenarios ?? [
      scenario('write-sizes', [
        operation('write-1KiB-file', 4 * slowdown, 9 * slowdown, 200 / slowdown, 1024),
        operation('write-1MiB-file', 12 * slowdown, 30 * slowdown, 60 / slowdown, 1048576),
      ], {}, 2 * slowdown),
      scenario('locking', [
        operation('lock-acquire', 2 * slowdown, 6 * slowdown, 300 / slowdown, 0),
        operation('locked-update', 5 * slowdown, 11 * slowdown, 150 / slowdown, 0),
      ], { lockMutualExclusion: true, lockedUpdates: 60 }),
    ],
  };
}

const results = [probeResult('elastic', 1), probeResult('bursting', 1.6)];

/** The `<svg class="chart">` elements of a page, whole. */
const chartsOf = (html: string) => html.match(/<svg class="chart"[\s\S]*?<\/svg>/g) ?? [];

/** The text of each cell in the summary table row of `operation`. */
function summaryRow(html: string, operation: string): string[] {
  const row = html.match(new RegExp(`<tr><th>${operation}</th>(.*?)</tr>`))?.[1] ?? '';
  return [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]);
}

test('draws a latency chart and a throughput chart for each scenario, each tagged with its scenario', () => {
  const scenarios = chartsOf(renderHtmlReport(results)).map((svg) => svg.match(/data-scenario="([^"]*)"/)?.[1]);
  expect(scenarios).toEqual(['write-sizes', 'write-sizes', 'locking', 'locking']);
});

test('charts are accessible images with a legend naming every result', () => {
  for (const svg of chartsOf(renderHtmlReport(results))) {
    expect(svg).toMatch(/^<svg [^>]*role="img"[^>]*aria-label="[^"]+"/);
    expect(svg).toContain('>elastic</text>');
    expect(svg).toContain('>bursting</text>');
  }
});

test('charts throughput in MB/s for operations that move bytes and in ops/s for the rest', () => {
  const [, writeThroughput, , lockThroughput] = chartsOf(renderHtmlReport(results));
  expect(writeThroughput).toContain('>MB/s</text>');
  expect(lockThroughput).toContain('>ops/s</text>');
});

test('the summary table lists p50, p99, ops/s, MB/s and errors for each result', () => {
  expect(summaryRow(renderHtmlReport(results), 'write-1MiB-file')).toEqual(['12', '30', '60', '62.9', '0', '19.2', '48', '37.5', '39.3', '0']);
});

test('the summary table leaves MB/s empty for operations that move no bytes', () => {
  expect(summaryRow(renderHtmlReport(results), 'lock-acquire')).toEqual(['2', '6', '300', '—', '0', '3.2', '9.6', '188', '—', '0']);
});

test('each scenario has a cost table: per run its seconds, metered MiB and what it cost under each throughput mode', () => {
  const html = renderHtmlReport(results);
  expect(html).toContain('<h3>Cost at test prices</h3>');
  const cells = (label: string) => [...(html.match(new RegExp(`<table class="cost">.*?<tr><th>${label}</th>(.*?)</tr>`))?.[1] ?? '').matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]);
  // These results were written before the probe priced S3 Files and a month of Elastic: a dash, and no month.
  expect(cells('elastic')).toEqual(['2.00', '0.0 / 10.0 / 2.0', '$0.00068', '$0.000037 at 6.00 MiB/s ($18.00 a month)', '$0.00, up to 12.0 MiB of credits', '-']);
  expect(cells('bursting')).toEqual(['3.20', '0.0 / 10.0 / 2.0', '$0.00068', '$0.000037 at 3.75 MiB/s ($11.25 a month)', '$0.00, up to 12.0 MiB of credits', '-']);
  const priced = results.map((r) => ({ ...r, scenarios: r.scenarios.map((sc) => ({ ...sc, cost: { ...sc.cost, elasticUsdPerMonth: 100, s3FilesUsd: 0.0007, s3FilesUsdPerMonth: 110 } })) }));
  const pricedHtml = renderHtmlReport(priced);
  expect(pricedHtml).toMatch(/<tr><th>elastic<\/th><td class="num">2\.00<\/td><td class="num">0\.0 \/ 10\.0 \/ 2\.0<\/td><td class="num">\$0\.00068 \(\$100\.00 a month\)<\/td>.*<td class="num">\$0\.00070 \(\$110\.00 a month\)<\/td><\/tr>/);
});

test('a result written before costs were estimated shows dashes for them', () => {
  const { pricing: _, ...older } = probeResult('older', 1);
  const html = renderHtmlReport([{ ...older, scenarios: older.scenarios.map(({ cost: __, ...s }) => s) } as unknown as ProbeResult]);
  expect(html).toContain('<h3>Cost at no prices (an older result)</h3>');
  expect(html).toContain('<tr><th>older</th><td class="num">-</td><td class="num">-</td>');
});

test('shows each scenario\'s source figure, parameters and findings', () => {
  const html = renderHtmlReport(results);
  expect(html).toContain('Reproduces: seed 004: the locking figure');
  expect(html).toContain('<tr><th>files</th><td>10</td><td>10</td></tr>');
  expect(html).toContain('<tr><th>lockMutualExclusion</th><td>true</td><td>true</td></tr>');
});

test('marks the bars of a result that did not run a scenario as missing', () => {
  const partial = probeResult('bursting', 1.6, probeResult('x', 1).scenarios.slice(0, 1));
  const [, , lockLatency] = chartsOf(renderHtmlReport([results[0], partial]));
  expect(lockLatency).toContain('>no data</text>');
});

test('escapes labels, findings and error messages', () => {
  const hostile = probeResult('<script>alert(1)</script>', 1, [{
    ...scenario('locking', [operation('lock-acquire', 1, 2, 3, 0)], { note: '<img src=x onerror=alert(2)>' }),
    errorMessages: ['EIO & "worse"'],
  }]);
  const html = renderHtmlReport([hostile]);
  expect(html).not.toMatch(/<script|<img/);
  expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(html).toContain('&lt;img src=x onerror=alert(2)&gt;');
  expect(html).toContain('EIO &amp; &quot;worse&quot;');
});

test('loads nothing from anywhere: no URLs, scripts, links, images or imports, and a policy that forbids them', () => {
  const html = renderHtmlReport(results);
  expect(html).not.toMatch(/https?:|\bsrc=|\bhref=|url\(|@import|<script|<link|<img|<iframe/i);
  expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
});

test('fails when given no results', () => {
  expect(() => renderHtmlReport([])).toThrow('renderHtmlReport: results is empty; give at least one probe result');
});

const CHROMIUM = '/usr/bin/chromium';
if (!fs.existsSync(CHROMIUM)) console.warn(`The HTML report's rendering tests are skipped: ${CHROMIUM} is missing (apt-get install chromium).`);
const describeWithChromium: jest.Describe = fs.existsSync(CHROMIUM) ? describe : describe.skip;

/** Runs headless Chromium on `page` with a fresh profile and no network chatter; returns its stdout. */
async function chromium(page: string, ...flags: string[]): Promise<string> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'));
  try {
    const { stdout } = await exec(CHROMIUM, [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, ...flags, `file://${page}`,
    ], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

interface Image {
  readonly width: number;
  readonly height: number;
  readonly channels: number;
  /** Row after row, `channels` bytes a pixel, red first. */
  readonly pixels: Buffer;
}

/** Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium's --screenshot writes). */
function decodePng(png: Buffer): Image {
  let offset = 8;
  let header: Buffer | undefined;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') header = body;
    if (type === 'IDAT') data.push(body);
    offset += 12 + length;
  }
  if (!header || header[8] !== 8 || ![2, 6].includes(header[9]) || header[12] !== 0) throw new Error('decodePng: not an 8-bit non-interlaced RGB(A) PNG');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const channels = header[9] === 6 ? 4 : 3;
  const stride = width * channels;
  const raw = zlib.inflateSync(Buffer.concat(data));
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? pixels[y * stride + i - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i] : 0;
      const c = i >= channels && y > 0 ? pixels[(y - 1) * stride + i - channels] : 0;
      const paeth = () => {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      };
      const predictor = [0, a, b, (a + b) >> 1, filter === 4 ? paeth() : 0][filter];
      pixels[y * stride + i] = (raw[y * (stride + 1) + 1 + i] + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/** How many pixels are exactly `colour` (`#rrggbb`). */
function countPixels(image: Image, colour: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
  let count = 0;
  for (let i = 0; i < image.pixels.length; i += image.channels) {
    if (image.pixels[i] === r && image.pixels[i + 1] === g && image.pixels[i + 2] === b) count++;
  }
  return count;
}

describeWithChromium('the HTML report in headless Chromium', () => {
  let dir: string;
  let html: string;
  let dom: string;
  let screenshot: Image;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-html-report-'));
    const page = path.join(dir, 'report.html');
    html = renderHtmlReport(results);
    fs.writeFileSync(page, html);
    const png = path.join(dir, 'report.png');
    [dom] = await Promise.all([
      chromium(page, '--dump-dom'),
      chromium(page, `--screenshot=${png}`, '--window-size=1200,2000'),
    ]);
    screenshot = decodePng(fs.readFileSync(png));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the parsed page holds every chart, each with bars of non-zero width', () => {
    const widths = chartsOf(dom).map((svg) => [...svg.matchAll(/<rect [^>]*width="([\d.]+)"[^>]*><title>/g)].map((m) => Number(m[1])));
    // Bars are the rects with a tooltip: one per result and row; latency has a p50 and a p99 row per operation.
    expect(widths.map((w) => w.length)).toEqual([8, 4, 8, 4]);
    expect(Math.min(...widths.flat())).toBeGreaterThan(0);
  });

  test('the screenshot shows bars in each result\'s legend colour', () => {
    expect([screenshot.width, screenshot.height]).toEqual([1200, 2000]);
    for (const label of ['elastic', 'bursting']) {
      const colour = html.match(new RegExp(`fill="(#[0-9a-f]{6})"></rect><text [^>]*>${label}</text>`))?.[1];
      expect(colour).toBeDefined();
      // The legend swatches cover 4 x 144 pixels; the rest must be bars (about 30,000 here).
      expect(countPixels(screenshot, colour!)).toBeGreaterThan(10_000);
    }
  });

  test('the screenshot shows dark text: titles, labels and ticks', () => {
    expect(countPixels(screenshot, '#222222')).toBeGreaterThan(5000);
  });
});
