/**
 * A URL with a password in it (`https://user:token@host/…`), written into an output file: a Git
 * remote given to the wiring chart with its credentials (`--set repoURL=…`), which the
 * Applications, the GitRepository and the README's regenerate command would commit. Argo CD and
 * Flux read a repository's credentials from a Secret (argo-cd docs user-guide/private-repositories,
 * Flux GitRepository spec.secretRef), never from the URL. Found by the text's shape, so a value
 * the run was never told is secret is caught too; a reference to be filled in (`${TOKEN}`,
 * `{{ .token }}`) is not a password.
 */
import type { Diagnostic } from '../core/diagnostics.js';

const URL_WITH_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/([^\s/:@"'`]+):([^\s/@"'`]+)@([^\s/"'`]+)/gi;

export interface UrlCredential {
  /** Where it is first written. */
  file: string;
  line: number;
  column: number;
  /** Every file that holds it. */
  files: string[];
  /** The URL up to its host, the credentials starred out. */
  shown: string;
}

/** Every URL with a password in the files, once each, in file order (READMEs last). */
export function urlCredentials(files: ReadonlyMap<string, string>): UrlCredential[] {
  const found = new Map<string, UrlCredential>();
  // told at an object that holds it rather than at the README's regenerate command
  const readmeLast = [...files].sort(([a], [b]) => Number(a.endsWith('README.md')) - Number(b.endsWith('README.md')));
  for (const [file, text] of readmeLast) {
    if (!text.includes('@')) continue;
    for (const match of text.matchAll(URL_WITH_PASSWORD)) {
      const [url, , password, host] = match;
      if (/^(\$|\{\{|%7B%7B)/i.test(password!)) continue;
      const shown = `${url.slice(0, url.indexOf('://') + 3)}****@${host}`;
      const known = found.get(url);
      if (known) {
        if (!known.files.includes(file)) known.files.push(file);
        continue;
      }
      const before = text.slice(0, match.index);
      found.set(url, { file, line: before.split('\n').length, column: match.index - before.lastIndexOf('\n'), files: [file], shown });
    }
  }
  return [...found.values()];
}

/** `inlineAccepts`: whether --secrets inline --allow-secret-values would write it (not in the operator layout). */
export function urlCredentialProblem(found: UrlCredential, inlineAccepts = true): Diagnostic {
  const more = found.files.length - 1;
  return {
    file: found.file,
    line: found.line,
    column: found.column,
    message: `holds a URL with credentials in it (${found.shown})${more > 0 ? `, as ${more} more file${more === 1 ? '' : 's'} do` : ''}, which would be committed`,
    expected: 'no credential in a URL written to Git',
    hint:
      'give the URL without its credentials where you gave it (--set, --values, or gitops.values in the Config), ' +
      'and the credentials to Argo CD as a repository Secret (label argocd.argoproj.io/secret-type: repository) ' +
      'or to Flux as the GitRepository spec.secretRef' +
      (inlineAccepts ? '; or pass --secrets inline --allow-secret-values to accept it in Git' : ''),
  };
}
