/** `capi-gitops convert`: operator v1alpha1 provider objects (and Turtles CAPIProviders) to v1alpha2. */
import { convertManifestFiles } from '../manifest/convert-documents.js';
import { commitTogether, prepareFile, abortAll, type PreparedFile } from '../core/prepared-file.js';
import { refuseLinkedManifestFiles } from '../manifest/files.js';

export type ConvertedFile = Awaited<ReturnType<typeof convertManifestFiles>>[number];

/**
 * Converts every file; `inPlace` rewrites the ones that changed, all together and only once every
 * file converted, so an error or a signal leaves each file as it was.
 */
export async function convert(files: readonly string[], inPlace: boolean): Promise<{ files: ConvertedFile[]; rewritten: number }> {
  const converted = await convertManifestFiles(files);
  if (!inPlace) return { files: converted, rewritten: 0 };
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
  return { files: converted, rewritten: changed.length };
}
