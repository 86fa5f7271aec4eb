import { Option } from 'commander';

/**
 * The formats every command that prints a report offers, said the same way: text fitted to the
 * terminal by default, `--json` for programs, `--markdown` for a file or a pull request (both on
 * standard output: redirect it to keep them).
 */
export interface OutputOptions {
  json?: boolean;
  markdown?: boolean;
}

export function jsonOption(what: string): Option {
  return new Option('--json', `print ${what} as JSON instead of text`).conflicts('markdown');
}

export function markdownOption(): Option {
  return new Option('--markdown', 'print Markdown (tables with pipes, a line each) for a file or a pull request, instead of text fitted to the terminal');
}
