/**
 * How a report is laid out: for a terminal, padded and wrapped to its width; or as Markdown (for a
 * file or a pull request), where tables and paragraphs keep one line each and the reader's tool wraps.
 */
export interface TextLayout {
  /** The widest line a report may print; unused for Markdown. */
  readonly width: number;
  readonly markdown: boolean;
}

/** The width when standard output is not a terminal (a pipe, a file, CI logs). */
export const DEFAULT_WIDTH = 100;

/**
 * The width of standard output: COLUMNS when set (POSIX: it overrides the terminal's size), the
 * terminal's when standard output is one, otherwise 100.
 */
export function outputWidth(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean; columns?: number } = process.stdout): number {
  const columns = Number(env.COLUMNS);
  if (Number.isInteger(columns) && columns > 0) return columns;
  if (stdout.isTTY && stdout.columns) return stdout.columns;
  return DEFAULT_WIDTH;
}

/** The layout a command prints in: Markdown when asked for, else standard output's width. */
export function outputLayout(options: { markdown?: boolean } = {}): TextLayout {
  return { width: outputWidth(), markdown: options.markdown === true };
}

/**
 * `text` in lines of at most `width` characters, broken at spaces (and, where `hyphens`, after a
 * hyphen inside a word, as in write-64KiB-file); a word longer than a whole line is cut, after a
 * comma or a slash where it has one.
 */
export function wrapText(text: string, width: number, options: { hyphens?: boolean } = {}): string[] {
  const lines: string[] = [];
  let line = '';
  for (const { text: piece, joiner } of pieces(text, options.hyphens === true)) {
    const joined = line === '' ? piece : `${line}${joiner}${piece}`;
    if (joined.length <= width) {
      line = joined;
      continue;
    }
    if (line !== '') lines.push(line);
    line = piece;
    while (line.length > width) {
      // A word wider than the line (a list of options, a path): cut after a comma or a slash where it has one.
      const cut = Math.max(line.lastIndexOf(',', width - 1), line.lastIndexOf('/', width - 1)) + 1 || width;
      lines.push(line.slice(0, cut));
      line = line.slice(cut);
    }
  }
  lines.push(line);
  return lines;
}

/** A paragraph wrapped to the layout's width, its first line after `first`, the rest after `rest` (a hanging indent). */
export function paragraph(text: string, layout: TextLayout, first = '', rest = first): string[] {
  if (layout.markdown) return [`${first}${text}`];
  const inner = Math.max(layout.width - Math.max(first.length, rest.length), MIN_TEXT_WIDTH);
  return wrapText(text, inner).map((line, i) => `${i === 0 ? first : rest}${line}`.trimEnd());
}

/** The narrowest text after an indent: on a terminal narrower than indent + this, lines run past its edge rather than one word a line. */
const MIN_TEXT_WIDTH = 20;

/** The longest piece `text` cannot be broken inside (see wrapText). */
export function longestPiece(text: string, hyphens: boolean): number {
  return Math.max(0, ...pieces(text, hyphens).map((p) => p.text.length));
}

/** The pieces a line may break between, each with what joins it to the one before on the same line. */
function pieces(text: string, hyphens: boolean): Array<{ text: string; joiner: string }> {
  return text.split(' ').filter((word) => word !== '').flatMap((word) => {
    // After a letter's hyphen only: never inside a negative number or a date.
    const parts = hyphens ? word.split(/(?<=[A-Za-z]-)(?=[A-Za-z0-9])/) : [word];
    return parts.map((part, i) => ({ text: part, joiner: i === 0 ? ' ' : '' }));
  });
}
