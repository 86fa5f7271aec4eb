import { outputWidth, paragraph, wrapText } from '../../../bin/report/text-layout';
import { renderTable, TableColumn } from '../../../bin/report/text-table';

const COLUMNS: TableColumn[] = [
  { header: 'operation', align: 'left' },
  { header: 'p50 ms', align: 'right' },
  { header: 'throughput', align: 'right' },
  { header: 'note', align: 'left' },
];
const ROWS = [
  ['write-64KiB-file', '0.21', '274.3 MB/s', 'the file is written, flushed and closed before the next one opens'],
  ['stat', '12345.67', '9323.9 ops/s', 'one round trip'],
];
const widest = (lines: string[]) => Math.max(...lines.map((l) => l.length));

describe('a table for a terminal', () => {
  test('pads each column to its widest cell under an underlined header: figures right, words left', () => {
    expect(renderTable(COLUMNS.slice(0, 3), ROWS.map((r) => r.slice(0, 3)), { width: 100, markdown: false })).toEqual([
      'operation           p50 ms    throughput',
      '----------------  --------  ------------',
      'write-64KiB-file      0.21    274.3 MB/s',
      'stat              12345.67  9323.9 ops/s',
    ]);
  });

  test.each([100, 80, 60])('fits %i columns, wrapping text onto continuation lines and never cutting a figure', (width) => {
    const lines = renderTable(COLUMNS, ROWS, { width, markdown: false });
    expect(widest(lines)).toBeLessThanOrEqual(width);
    for (const figure of ['0.21', '12345.67', '274.3', '9323.9']) expect(lines.some((l) => l.includes(figure))).toBe(true);
    // The note's words all there, in order, across its lines.
    const noteStart = lines[0].indexOf('note');
    const note = lines.slice(2).map((l) => l.slice(noteStart).trim()).join(' ');
    expect(note).toContain('the file is written, flushed and closed before the next one opens');
  });

  test('too narrow for the columns side by side: a block of header: value lines per row', () => {
    const lines = renderTable(COLUMNS, ROWS, { width: 24, markdown: false });
    expect(widest(lines)).toBeLessThanOrEqual(24);
    expect(lines.slice(0, 3)).toEqual(['operation:', '  write-64KiB-file', 'p50 ms: 0.21']);
    expect(lines).toContain('p50 ms: 12345.67');
  });
});

test('a table in Markdown keeps a line per row, whatever the width', () => {
  expect(renderTable(COLUMNS.slice(0, 3), ROWS.map((r) => r.slice(0, 3)), { width: 20, markdown: true })).toEqual([
    '| operation | p50 ms | throughput |',
    '|---|---:|---:|',
    '| write-64KiB-file | 0.21 | 274.3 MB/s |',
    '| stat | 12345.67 | 9323.9 ops/s |',
  ]);
});

describe('wrapping', () => {
  test('breaks at spaces, and after a word\'s hyphen only where asked', () => {
    expect(wrapText('write-64KiB-file now', 12)).toEqual(['write-64KiB-file'.slice(0, 12), 'file now']);
    expect(wrapText('write-64KiB-file now', 12, { hyphens: true })).toEqual(['write-64KiB-', 'file now']);
  });

  test('cuts a word wider than the line after a comma or a slash where it has one', () => {
    expect(wrapText('options vers=4.1,rsize=1048576,hard', 20)).toEqual(['options', 'vers=4.1,', 'rsize=1048576,hard']);
    expect(wrapText('abcdefghijklmnopqrstuvwxyz', 10)).toEqual(['abcdefghij', 'klmnopqrst', 'uvwxyz']);
  });

  test('never breaks a negative figure or a date at its hyphen', () => {
    expect(wrapText('down -12.5% since 2026-11-24', 11, { hyphens: true })).toEqual(['down -12.5%', 'since', '2026-11-24']);
  });

  test('a paragraph hangs under its marker on a terminal, and keeps one line in Markdown', () => {
    expect(paragraph('one two three four', { width: 30, markdown: false }, '- ', '  ')).toEqual(['- one two three four']);
    expect(paragraph('one two three four five six seven eight', { width: 24, markdown: false }, '- ', '  ')).toEqual(['- one two three four', '  five six seven eight']);
    expect(paragraph('one two three four five six seven eight', { width: 24, markdown: true }, '- ')).toEqual(['- one two three four five six seven eight']);
  });
});

describe('the width reports fit', () => {
  test('COLUMNS when set, as POSIX says', () => expect(outputWidth({ COLUMNS: '72' }, { isTTY: true, columns: 200 })).toBe(72));
  test('the terminal\'s when standard output is one', () => expect(outputWidth({}, { isTTY: true, columns: 132 })).toBe(132));
  test('100 when it is not (a pipe, a file, CI)', () => expect(outputWidth({}, { isTTY: false })).toBe(100));
});
