/**
 * A seed's S3 prefix as the handler lists it: 'site' means the folder 'site/', not every key that
 * starts with 'site'; '' is the whole bucket, listed without a Prefix. The constructs grant on, and
 * condition policies on, exactly this (no SDK imports: they load this module too).
 */
export function folderPrefix(prefix: string): string {
  return prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix;
}
