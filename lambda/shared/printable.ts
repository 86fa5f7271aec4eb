/**
 * Text from input (an archive member's name, an S3 key, a lock's holder) made safe to print: control
 * characters (C0, DEL, C1) and the bidirectional overrides, which a terminal would obey (retitle the
 * window, clear the screen, move the cursor back over a line and print another, reorder what follows),
 * are shown as escapes instead: `\n`, `\x1b`, `\u202e`. Everything else is left as it is.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => NAMED[c] ?? escapeOf(c.charCodeAt(0)));
}

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const escapeOf = (code: number) => (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
