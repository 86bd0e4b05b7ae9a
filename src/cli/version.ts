import { createRequire } from 'node:module';

// package.json is the one place the version is written; the single-file bundle inlines it.
const manifest = createRequire(import.meta.url)('../../../package.json') as { version: string };

export const VERSION = manifest.version;

/** What `capi-gitops version` reports: enough to reproduce a render elsewhere. */
export function versionInfo(): { version: string; node: string; platform: string } {
  return { version: VERSION, node: process.version, platform: `${process.platform}/${process.arch}` };
}

/** `capi-gitops version` without --json. */
export function versionText(info: ReturnType<typeof versionInfo>): string {
  return `capi-gitops ${info.version}\nnode ${info.node}\nplatform ${info.platform}\n`;
}
