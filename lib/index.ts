export * from './shared-file-system';
export * from './storage-lifecycle';
export * from './access-point-preset';
export * from './mount-options';
export * from './file-system-seed';
export * from './seed-source';
export * from './seed-engine';
export * from './efs-metrics';
