export * from './shared-file-system';
export * from './storage-lifecycle';
export * from './access-point-preset';
export * from './mount-options';
