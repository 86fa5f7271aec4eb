import { Duration, Size, Token } from 'aws-cdk-lib';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { IConstruct } from 'constructs';
import {
  DEFAULT_EXPIRATION_DAYS, DEFAULT_IMPORT_SIZE_BYTES, MAX_EXPIRATION_DAYS, MAX_IMPORT_DATA_RULES, MAX_IMPORT_SIZE_BYTES, MIN_EXPIRATION_DAYS,
} from './contract/s3-files-names';
import { check } from '../core/validate';

/** When S3 Files imports the data of a file (its metadata comes with the first listing of its directory). */
export class ImportTrigger {
  /** With the first `ls` or `open` in the file's directory (S3 Files' default). */
  public static readonly ON_DIRECTORY_FIRST_ACCESS = new ImportTrigger('ON_DIRECTORY_FIRST_ACCESS');
  /** With the first access to the file itself. */
  public static readonly ON_FILE_ACCESS = new ImportTrigger('ON_FILE_ACCESS');

  /** The value CloudFormation takes. */
  public readonly value: string;

  private constructor(value: string) {
    this.value = value;
  }
}

/** Which files under a prefix S3 Files copies onto the file system's high-performance tier, and when. */
export interface ImportDataRule {
  /**
   * The key prefix the rule applies to, relative to the file system's prefix; '' is the root.
   * Exactly one rule must be for the root.
   */
  readonly prefix: string;
  /**
   * Files smaller than this are imported; larger ones are read straight from S3. 0 to 48 TiB.
   * @default Size.kibibytes(128)
   */
  readonly sizeLessThan?: Size;
  /**
   * When the data is imported.
   * @default ImportTrigger.ON_DIRECTORY_FIRST_ACCESS
   */
  readonly trigger?: ImportTrigger;
}

/** What S3 Files keeps on its high-performance tier (AWS::S3Files::FileSystem SynchronizationConfiguration). */
export interface SynchronizationRules {
  /**
   * Up to 10 import rules, exactly one with prefix '' (the root).
   * @default - one root rule: files under 128 KiB, on the directory's first access
   */
  readonly importDataRules?: ImportDataRule[];
  /**
   * How long a file's data stays on the high-performance tier after its last access (whole days, 1 to 365).
   * The bucket keeps the data; a later read imports it again.
   * @default Duration.days(30)
   */
  readonly expireDataAfterLastAccess?: Duration;
}

/** The CloudFormation SynchronizationConfiguration of `rules`, checked; undefined leaves S3 Files' defaults. */
export function renderSynchronization(scope: IConstruct, where: string, rules: SynchronizationRules | undefined): s3files.CfnFileSystem.SynchronizationConfigurationProperty | undefined {
  if (!rules) return undefined;
  const imports = rules.importDataRules ?? [{ prefix: '' }];
  check(imports.length >= 1 && imports.length <= MAX_IMPORT_DATA_RULES, where, 'synchronization.importDataRules', imports.length, `must hold 1 to ${MAX_IMPORT_DATA_RULES} rules`, scope);
  const roots = imports.filter((r) => r.prefix === '').length;
  check(roots === 1, where, 'synchronization.importDataRules', imports.map((r) => r.prefix), `must hold exactly one rule for the root prefix '' (found ${roots})`, scope);
  const prefixes = imports.map((r) => r.prefix);
  check(new Set(prefixes).size === prefixes.length, where, 'synchronization.importDataRules', prefixes, 'must not repeat a prefix', scope);
  const importDataRules = imports.map((rule, i) => {
    const bytes = (rule.sizeLessThan ?? Size.bytes(DEFAULT_IMPORT_SIZE_BYTES)).toBytes();
    check(Token.isUnresolved(bytes) || (bytes >= 0 && bytes <= MAX_IMPORT_SIZE_BYTES), where, `synchronization.importDataRules[${i}].sizeLessThan (bytes)`, bytes, 'must be from 0 to 48 TiB', scope);
    return { prefix: rule.prefix, sizeLessThan: bytes, trigger: (rule.trigger ?? ImportTrigger.ON_DIRECTORY_FIRST_ACCESS).value };
  });
  const expiration = rules.expireDataAfterLastAccess;
  const days = expiration ? expiration.toDays({ integral: false }) : DEFAULT_EXPIRATION_DAYS;
  check(Token.isUnresolved(days) || (Number.isInteger(days) && days >= MIN_EXPIRATION_DAYS && days <= MAX_EXPIRATION_DAYS), where, 'synchronization.expireDataAfterLastAccess (days)', days,
    `must be whole days from ${MIN_EXPIRATION_DAYS} to ${MAX_EXPIRATION_DAYS}`, scope);
  return { importDataRules, expirationDataRules: [{ daysAfterLastAccess: days }] };
}
