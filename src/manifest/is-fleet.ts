import type { Manifest } from './types.js';

/** Whether a manifest declares a fleet: asked on every run, so apart from expand.ts, which only a fleet loads. */
export function isFleet(manifest: Manifest): boolean {
  return (manifest.config.clusters?.length ?? 0) > 0;
}
