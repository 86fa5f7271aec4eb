import { THROUGHPUT_MODES } from '../../lib/cost/efs-cost';
import { Advice, formatDays, MODE_NAMES, ModeCost } from '../advise/advice';
import { NAMESPACES } from '../advise/file-system-kind';
import { usd } from './money';
import { paragraph, TextLayout } from './text-layout';
import { renderTable, TableColumn } from './text-table';

const GiB = 1024 ** 3;
const TiB = 1024 ** 4;

/** GiB with one decimal, thousands grouped; TiB from 1 TiB up. */
function size(bytes: number): string {
  const [value, unit] = bytes >= TiB ? [bytes / TiB, 'TiB'] : [bytes / GiB, 'GiB'];
  return `${value.toLocaleString('en-US', { minimumFractionDigits: unit === 'TiB' ? 2 : 1, maximumFractionDigits: unit === 'TiB' ? 2 : 1 })} ${unit}`;
}

/** `cdk-efs-kit advise` as text: the window, the traffic and storage, the modes and S3 Files side by side, the recommendation and its notes. */
export function renderAdviceTable(advice: Advice, layout: TextLayout): string {
  const text = (line: string) => paragraph(line, layout);
  const out = [...text(windowLine(advice)), ...text(`Prices: ${advice.pricing.label}`), ...text(`S3 Files prices: ${advice.s3Files.pricing.label}`), ''];
  if (!advice.dataFound) return [...out, ...text(noDataLine(advice))].join('\n');
  out.push(...text(trafficLine(advice)), ...text(storageLine(advice)), ...text(s3FilesLine(advice)), '');
  const [head, ...rows] = adviceRows(advice);
  const columns: TableColumn[] = [{ header: '', align: 'left' }, ...head.cells.map((header): TableColumn => ({ header, align: 'right' }))];
  out.push(...renderTable(columns, rows.map((r) => [r.label, ...r.cells]), layout));
  if (advice.recommendation) out.push('', ...text(`Recommendation: ${advice.recommendation.reason}`));
  if (advice.s3FilesComparison) out.push(...text(advice.s3FilesComparison));
  if (advice.notes.length > 0) out.push('', 'Notes:', ...advice.notes.flatMap((n) => paragraph(n, layout, '- ', '  ')));
  return out.join('\n');
}

/** The namespaces the metrics came from: both when the kind was neither given nor found. */
function namespaceOf(advice: Advice): string {
  return advice.kind ? NAMESPACES[advice.kind] : `${NAMESPACES.efs} or ${NAMESPACES.s3files}`;
}

export function windowLine(advice: Advice): string {
  return `${advice.fileSystemId}: ${formatDays(advice.days)} of ${namespaceOf(advice)} metrics, ${advice.start} to ${advice.end}`;
}

export function noDataLine(advice: Advice): string {
  return `CloudWatch has no ${namespaceOf(advice)} metrics for ${advice.fileSystemId} in this window: a file system too new to have reported any, `
    + 'one in another Region or account, or a mistyped id. Nothing to advise on.';
}

/** The modes and S3 Files side by side: a header row with their names, then a row per figure, a cell each. */
export function adviceRows(advice: Advice): Array<{ label: string; cells: string[] }> {
  const modes = THROUGHPUT_MODES.map((m) => advice[m]);
  const s3Files = advice.s3Files;
  const row = (label: string, cell: (m: ModeCost) => string, s3FilesCell: string) => ({ label, cells: [...modes.map(cell), s3FilesCell] });
  return [
    row('', (m) => MODE_NAMES[m.mode], 'S3 Files'),
    row('data access or throughput', (m) => usd(m.throughputUsd), usd(s3Files.accessUsd)),
    row('storage', (m) => usd(m.storageUsd), usd(s3Files.storageUsd)),
    row(`total for ${formatDays(advice.days)}`, (m) => usd(m.totalUsd), usd(s3Files.totalUsd)),
    row('storage without IA lifecycle', (m) => usd(m.storageWithoutLifecycleUsd), '-'),
    row('storage with IA lifecycle', (m) => `${usd(m.storageWithLifecycleUsd)}${m.lifecycleTieringUsd > 0 ? ` + ${usd(m.lifecycleTieringUsd)} once` : ''}`, '-'),
    row('traffic held back', (m) => (m.heldBackMinutes === 0
      ? 'never'
      : `${m.heldBackMinutes.toLocaleString('en-US')} min, ${m.longestHeldBackMinutes.toLocaleString('en-US')} in a row`), '-'),
    row('sized and billed', (m) => modeDetail(advice, m), `per GB, ${s3Files.assumptions.hotPercent}% hot`),
  ];
}

/** S3 Files' figures by part, and the storage they price. */
export function s3FilesLine(advice: Advice): string {
  const s = advice.s3Files;
  const stored = s.hotBytes === undefined || s.dataSetBytes === undefined
    ? 'no StorageBytes'
    : `${size(s.hotBytes)} on the high-performance storage ${usd(s.highPerformanceStorageUsd)}, ${size(s.dataSetBytes)} in the bucket ${usd(s.bucketStorageUsd)}`;
  return `S3 Files: data reads ${usd(s.dataReadUsd)}, writes ${usd(s.dataWriteUsd)}, metadata ${usd(s.metadataUsd)}, the sync's exports ${usd(s.exportUsd)}; ${stored}`;
}

export function trafficLine(advice: Advice): string {
  const t = advice.traffic;
  return `Traffic: ${size(t.dataReadBytes + t.metadataReadBytes)} read, ${size(t.dataWriteBytes + t.metadataWriteBytes)} written `
    + `(metadata ${size(t.metadataReadBytes + t.metadataWriteBytes)} of it); metered p99 ${t.p99MeteredMibps.toFixed(2)} MiB/s, `
    + `peak ${t.peakMeteredMibps.toFixed(2)} MiB/s; I/O in ${t.activeMinutes.toLocaleString('en-US')} of ${t.minutes.toLocaleString('en-US')} minutes`;
}

export function storageLine(advice: Advice): string {
  const s = advice.storage;
  return s
    ? `Storage: ${size(s.total)} on average (Standard ${size(s.standard)}, IA ${size(s.ia)}, Archive ${size(s.archive)})${advice.oneZone ? ', One Zone' : ''}`
    : 'Storage: no StorageBytes reported';
}

/** How the mode would have been sized and billed for this traffic. */
export function modeDetail(advice: Advice, m: ModeCost): string {
  if (m.mode === 'elastic') return 'per GB read and written';
  if (m.mode === 'provisioned') return `${advice.provisioned.provisionedMibps.toFixed(2)} MiB/s (p99), ${advice.provisioned.includedMibps.toFixed(2)} included`;
  const b = advice.bursting;
  const start = `credits from ${size(b.startCreditBytes)}${b.startCredits === 'assumed full' ? ' (full)' : ''}`;
  return b.creditsRanOutAt ? `${start}, ran out ${b.creditsRanOutAt}` : `${start}, lowest ${size(b.lowestCreditBytes)}`;
}
