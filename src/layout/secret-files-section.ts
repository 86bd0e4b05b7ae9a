/**
 * The output README's list of files that hold secret values (the inline strategy): written by the
 * templates (output/README.md.hbs, output/fleet-README.md.hbs) and read back by the fleet layout
 * (a cluster's list goes into the fleet's README) and by reviews (their values are hidden).
 */

/** The heading the templates write above the list, up to the next heading. */
const SECTION = /## Warning: files holding secret values\n([\s\S]*?)(?:\n## |$)/;

/** The files a README's section lists, as written there (relative to the README's directory). */
export function secretFilesListed(readme: string): string[] {
  const section = SECTION.exec(readme)?.[1] ?? '';
  return [...section.matchAll(/^- `([^`]+)`$/gm)].map((match) => match[1]!);
}
