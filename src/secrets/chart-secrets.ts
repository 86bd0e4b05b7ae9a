/**
 * A Secret the wiring chart draws with values: they come from chart values (Config.gitops.values,
 * --values, --set) or the chart's own templates, and a value in a Secret's data is secret wherever
 * it is given. Taint tracking covers component objects only, so these Secrets are found in the
 * laid-out files: every file outside the component directories that holds a v1 Secret.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import YAML from 'yaml';

const SECRET_DOCUMENT = /^kind:\s*["']?Secret["']?\s*$/m;

export interface DrawnSecret {
  file: string;
  object: string;
  sections: string[];
}

/** The wiring's v1 Secrets that carry data or stringData; `componentDirectories` are skipped (taint tracking covers them). */
export function chartDrawnSecrets(files: ReadonlyMap<string, string>, componentDirectories: ReadonlySet<string>): DrawnSecret[] {
  const found: DrawnSecret[] = [];
  for (const [file, text] of files) {
    if (componentDirectories.has(file.split('/')[0]!) || !SECRET_DOCUMENT.test(text)) continue;
    for (const doc of YAML.parseAllDocuments(text)) {
      const obj: unknown = doc.toJS();
      if (!isPlainObject(obj) || obj.apiVersion !== 'v1' || obj.kind !== 'Secret') continue;
      const sections = ['data', 'stringData'].filter((s) => isPlainObject(obj[s]) && Object.keys(obj[s]).length > 0);
      if (sections.length === 0) continue;
      const metadata = isPlainObject(obj.metadata) ? obj.metadata : {};
      const name = [metadata.namespace, metadata.name].filter((p) => typeof p === 'string').join('/');
      found.push({ file, object: `Secret/${name}`, sections });
    }
  }
  return found;
}

export function chartSecretProblem(drawn: DrawnSecret): Diagnostic {
  return {
    file: drawn.file,
    object: drawn.object,
    path: drawn.sections.join(', '),
    message:
      "the wiring chart writes values into this Secret; a value in a Secret's data is secret wherever it is given " +
      '(chart values: Config.gitops.values, --values, --set)',
    expected: "no Secret values in the wiring (Config.secrets.strategy places only the components' secrets)",
    hint: 'have the chart draw an ExternalSecret, or a Secret the cluster fills, instead; or pass --secrets inline --allow-secret-values to accept the values in Git',
  };
}
