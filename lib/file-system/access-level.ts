/** How much a client may do on the file system, as EFS's IAM actions. */
export enum AccessLevel {
  /** `elasticfilesystem:ClientMount` */
  READ_ONLY = 'READ_ONLY',
  /** `ClientMount` and `ClientWrite` */
  READ_WRITE = 'READ_WRITE',
  /** `ClientMount`, `ClientWrite` and `ClientRootAccess` (bypasses the access point's POSIX user) */
  ROOT = 'ROOT',
}
