/** `capi-gitops convert`: operator v1alpha1 provider objects (and Turtles CAPIProviders) to v1alpha2. */
import { convertManifestFiles } from '../manifest/convert-documents.js';
import { commitTogether, prepareFile, abortAll, type PreparedFile } from '../core/prepared-file.js';
import { refuseLinkedManifestFiles } from '../manifest/files.js';
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';

export type ConvertedFile = Awaited<ReturnType<typeof convertManifestFiles>>[number];

/**
 * Converts every file; `inPlace` rewrites the ones that changed, all together and only once every
 * file converted, so an error or a signal leaves each file as it was.
 */
export async function convert(
  files: readonly string[],
  inPlace: boolean,
): Promise<{ files: ConvertedFile[]; rewritten: number; withheld: ConvertedFile[] }> {
  const converted = await convertManifestFiles(files);
  if (!inPlace) return printable(converted);
  const changed = converted.filter((file) => file.converted.length > 0);
  // a link is replaced where it points (prepareFile), which may be outside the repository
  await refuseLinkedManifestFiles(
    changed.map((file) => file.file),
    'convert --in-place',
  );
  const prepared: PreparedFile[] = [];
  try {
    for (const file of changed) prepared.push(await prepareFile(file.file, file.text));
  } catch (err) {
    await abortAll(prepared);
    throw err;
  }
  await commitTogether(prepared);
  return { files: converted, rewritten: changed.length, withheld: [] };
}

/**
 * What convert may print: a file holding a Secret would print its values (and the plain text a
 * kubectl last-applied-configuration annotation keeps), so it is withheld when it has nothing to
 * convert, and refused when it has, since printing the rest would lose objects.
 */
function printable(converted: ConvertedFile[]): { files: ConvertedFile[]; rewritten: number; withheld: ConvertedFile[] } {
  const refused: Diagnostic[] = converted
    .filter((file) => file.secret && file.converted.length > 0)
    .map((file) => ({
      ...file.secret!,
      message: 'is in a file with objects to convert, and convert prints the file whole: its values would be printed',
      expected: 'no Secret in a file convert prints',
      hint: `rewrite it in place, which prints nothing: capi-gitops convert -f ${file.file} --in-place`,
    }));
  if (refused.length > 0) throw new CapiGitopsError(refused);
  return { files: converted.filter((file) => !file.secret), rewritten: 0, withheld: converted.filter((file) => file.secret) };
}
