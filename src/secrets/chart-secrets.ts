/**
 * A Secret the wiring chart draws with values: they come from chart values (Config.gitops.values,
 * --values, --set) or the chart's own templates, and a value in a Secret's data is secret wherever
 * it is given. Taint tracking covers component objects only, so these Secrets are found in the
 * laid-out files: every file outside the component directories that holds a v1 Secret.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { isPlainObject } from '../core/kobject.js';
import { decodeBase64 } from '../manifest/core-objects.js';
import YAML from 'yaml';
import { scanOutput, secretNeedles, type SecretNeedles } from './gate.js';

const SECRET_DOCUMENT = /^kind:\s*["']?Secret["']?\s*$/m;

/**
 * Argo CD's repository Secrets (label `argocd.argoproj.io/secret-type`; argo-cd docs
 * operator-manual/declarative-setup, user-guide/private-repositories): beside the credentials
 * they hold the repository's address and settings, which the Applications name too (`url` is
 * their `repoURL`). Those keys are no credential; one whose value carries a URL's user part is.
 */
const ARGOCD_REPOSITORY_SECRET_TYPES = new Set(['repository', 'repo-creds', 'repository-write', 'repo-write-creds']);
const ARGOCD_REPOSITORY_SETTINGS = new Set([
  'url',
  'type',
  'name',
  'project',
  'insecure',
  'enableLfs',
  'enableOCI',
  'forceHttpBasicAuth',
  'proxy',
  'noProxy',
  'githubAppID',
  'githubAppInstallationID',
  'githubAppEnterpriseBaseUrl',
]);
const URL_USER_PART = /:\/\/[^\s/@]*@/;

function argocdRepositorySetting(metadata: Record<string, unknown>, key: string, value: unknown): boolean {
  const labels = isPlainObject(metadata.labels) ? metadata.labels : {};
  const type = labels['argocd.argoproj.io/secret-type'];
  return (
    typeof type === 'string' &&
    ARGOCD_REPOSITORY_SECRET_TYPES.has(type) &&
    ARGOCD_REPOSITORY_SETTINGS.has(key) &&
    !URL_USER_PART.test(String(value))
  );
}

export interface DrawnSecret {
  file: string;
  object: string;
  sections: string[];
  /** `section.key` → the value (a data value also decoded), for the gate over the other files. */
  values: Map<string, string[]>;
}

/** The wiring's v1 Secrets that carry data or stringData; `componentDirectories` are skipped (taint tracking covers them). */
export function chartDrawnSecrets(files: ReadonlyMap<string, string>, componentDirectories: ReadonlySet<string>): DrawnSecret[] {
  const found: DrawnSecret[] = [];
  for (const [file, text] of files) {
    if (componentDirectories.has(file.split('/')[0]!) || !SECRET_DOCUMENT.test(text)) continue;
    for (const doc of YAML.parseAllDocuments(text)) {
      const obj: unknown = doc.toJS();
      if (!isPlainObject(obj) || obj.apiVersion !== 'v1' || obj.kind !== 'Secret') continue;
      const metadata = isPlainObject(obj.metadata) ? obj.metadata : {};
      const name = [metadata.namespace, metadata.name].filter((p) => typeof p === 'string').join('/');
      const values = new Map<string, string[]>();
      const sections = new Set<string>();
      for (const section of ['data', 'stringData']) {
        if (!isPlainObject(obj[section])) continue;
        for (const [key, value] of Object.entries(obj[section])) {
          const decoded = section === 'data' && typeof value === 'string' ? decodeBase64(value)?.toString('utf8') : undefined;
          if (argocdRepositorySetting(metadata, key, decoded ?? value)) continue;
          sections.add(section);
          if (typeof value !== 'string') continue;
          values.set(`Secret/${name} ${section}.${key}`, decoded === undefined ? [value] : [value, decoded]);
        }
      }
      if (sections.size === 0) continue;
      found.push({ file, object: `Secret/${name}`, sections: [...sections], values });
    }
  }
  return found;
}

/** `at`: the chart line that writes the Secret's data, else the output file it would be written to (which nothing wrote) is named. */
/** `elsewhere`: a value is in another output file too (the README's regenerate command records `--set`), which inline would refuse next. */
export function chartSecretProblem(drawn: DrawnSecret, at?: Pick<Diagnostic, 'file' | 'line' | 'column'>, elsewhere = false): Diagnostic {
  return {
    ...(at ?? { file: drawn.file }),
    object: drawn.object,
    path: drawn.sections.join(', '),
    message:
      `the wiring chart writes values into this Secret${at ? ` (${drawn.file})` : ''}; a value in a Secret's data is secret wherever it is given ` +
      '(chart values: Config.gitops.values, --values, --set)',
    expected: "no Secret values in the wiring (Config.secrets.strategy places only the components' secrets)",
    hint:
      'have the chart draw an ExternalSecret, or a Secret the cluster fills, instead; or pass --secrets inline --allow-secret-values to accept the values in Git' +
      (elsewhere
        ? ', giving them with --values <file kept outside Git> rather than --set or --set-string (the README records the command)'
        : ''),
  };
}

/** The values of the Secrets the wiring chart draws: secret, as any value in a Secret's data (masked, redacted, gated). */
export function drawnSecretNeedles(drawn: readonly DrawnSecret[]): SecretNeedles {
  return secretNeedles(new Map(drawn.flatMap((d) => [...d.values])));
}

/**
 * With inline, a drawn Secret's file holds its values by consent; any other file that holds one
 * (the README's regenerate command records `--set key=value`) would commit it unannounced.
 */
export function chartSecretLeaks(
  files: ReadonlyMap<string, string>,
  drawn: readonly DrawnSecret[],
  exempt: ReadonlySet<string>,
): Diagnostic[] {
  return scanOutput(files, drawnSecretNeedles(drawn), exempt).map((d) => ({
    ...d,
    // scanOutput names the needle's key (`Secret/ns/name section.key`), never the value
    message: `${d.message.replace(/, raw or encoded$/, '')}, which the wiring chart draws from chart values`,
    expected: 'a value of a Secret only in the files --secrets inline declares',
    hint:
      'give chart values that land in a Secret with --values <file kept outside Git> rather than --set or Config.gitops.values ' +
      '(the README records the command), and keep the chart from writing them anywhere else',
  }));
}
