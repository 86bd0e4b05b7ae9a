/**
 * `capi-gitops.lock.yaml`: reading, writing and the text form. The lock sits beside the first
 * manifest file and is committed with it. Its text is a function of its content only: entries
 * and files sorted, keys in a fixed order, no timestamps, a final newline.
 *
 * The other lock modules are re-exported here, so callers import from one place; this one loads
 * the `yaml` library (library.ts), so the render path imports store.ts and text.ts directly.
 */
export * from './types.js';
export * from './request.js';
export * from './build.js';
export * from './diff.js';
export * from './verify.js';
export * from './library.js';
export * from './store.js';
export { fastLockfileText } from './text.js';
