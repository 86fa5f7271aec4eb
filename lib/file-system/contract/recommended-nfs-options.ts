/**
 * The NFS mount options Amazon EFS recommends: NFSv4.1, 1 MiB I/O, hard mounts with 60 s timeouts,
 * no reserved ports. NfsMountOptions.recommendedNfs() writes them; the doctor and the readiness gate
 * hold a mount's options against them (so this module imports nothing).
 */
export const RECOMMENDED_NFS_OPTIONS: readonly string[] = ['nfsvers=4.1', 'rsize=1048576', 'wsize=1048576', 'hard', 'timeo=600', 'retrans=2', 'noresvport'];
