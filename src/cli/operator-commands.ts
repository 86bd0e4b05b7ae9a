/** Commands for cluster-api-operator users: `convert` (v1alpha1 → v1alpha2) and `import helm-values`. */
import path from 'node:path';
import { convertManifestFiles } from '../manifest/convert-documents.js';
import { writeFileAtomically } from '../upgrade.js';

export async function convertCommand(flags: { file?: string[]; inPlace?: boolean; quiet?: boolean }): Promise<void> {
  const files = await convertManifestFiles(flags.file ?? []);
  const note = (line: string) => {
    if (!flags.quiet) process.stderr.write(`${line}\n`);
  };
  for (const file of files) {
    for (const object of file.converted) note(`${path.relative(process.cwd(), path.resolve(object.file)) || object.file}:${object.line}: converted ${object.object} to v1alpha2`);
  }
  if (flags.inPlace) {
    // Files are written only once every file converted.
    const changed = files.filter((file) => file.converted.length > 0);
    for (const file of changed) await writeFileAtomically(file.file, file.text);
    note(`rewrote ${changed.length} of ${files.length} file(s)`);
    return;
  }
  files.forEach((file, index) => {
    if (index > 0 && !files[index - 1].text.endsWith('\n')) process.stdout.write('\n');
    if (index > 0) process.stdout.write('---\n');
    process.stdout.write(file.text);
  });
}
