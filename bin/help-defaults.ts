import type { Help, Option } from 'commander';

/**
 * An option's help line with its default as a person writes it: `14`, not `"14"`; nothing for a
 * switch that is off, an empty list or a default the description already says. Commander's own
 * prints the value's JSON (`{}`, `[]`, `"14"`, `false`).
 */
export function optionDescription(option: Option): string {
  const shown = defaultShown(option);
  return shown === undefined ? option.description : `${option.description} (default: ${shown})`;
}

function defaultShown(option: Option): string | undefined {
  if (option.defaultValueDescription) return option.defaultValueDescription;
  const value: unknown = option.defaultValue;
  // --no-x defaults to true: the switch's name says it.
  if (value === undefined || value === false || option.negate) return undefined;
  if (Array.isArray(value)) return value.length > 0 ? value.join(',') : undefined;
  if (typeof value === 'object') return undefined;
  return String(value);
}

/** Commander's help settings for every command: configureHelp passes them down to the commands made after it. */
export const HELP: Partial<Help> = { optionDescription };
