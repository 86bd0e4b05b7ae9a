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
import { LineIndex } from '../yaml/split.js';

/** The word before an `@`: a URL's scheme, user and password when it is one. */
const USERINFO_BEFORE_AT = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/:@"'`]+):([^\s/@"'`]+)$/i;
const HOST_AFTER_AT = /^[^\s/"'`]+/;

interface UrlCredential {
  /** Where it is first written. */
  file: string;
  line: number;
  column: number;
  /** Every file that holds it. */
  files: string[];
  /** The URL up to its host, the credentials starred out. */
  shown: string;
  /** The URL up to its host as written, credentials included: to find the value that gave it; never printed. */
  url: string;
}

/** Where the chart values gave the URL: a value's path and, in a file (a --values file, the Config), its position. */
interface UrlOrigin {
  path: string;
  position?: Pick<Diagnostic, 'file' | 'line' | 'column'>;
}

/** Every URL with a password in the files, once each, in file order (READMEs last). */
export function urlCredentials(files: ReadonlyMap<string, string>): UrlCredential[] {
  const found = new Map<string, UrlCredential>();
  // told at an object that holds it rather than at the README's regenerate command
  const readmeLast = [...files].sort(([a], [b]) => Number(a.endsWith('README.md')) - Number(b.endsWith('README.md')));
  for (const [file, text] of readmeLast) {
    if (!text.includes('@')) continue;
    const positions = new LineIndex(text);
    // from each `@` back to the white space before it: a regular expression over the whole text
    // tried every word of the corpus's CRDs (15 ms a cluster)
    for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
      const start = Math.max(text.lastIndexOf(' ', at), text.lastIndexOf('\n', at), at - 2048) + 1;
      const match = USERINFO_BEFORE_AT.exec(text.slice(start, at));
      const host = HOST_AFTER_AT.exec(text.slice(at + 1, at + 257))?.[0];
      if (!match || !host) continue;
      const [before, scheme, , password] = match;
      if (/^(\$|\{\{|%7B%7B)/i.test(password!)) continue;
      const index = start + match.index;
      const url = `${before}@${host}`;
      const known = found.get(url);
      if (known) {
        if (!known.files.includes(file)) known.files.push(file);
        continue;
      }
      found.set(url, {
        file,
        ...positions.at(index),
        files: [file],
        shown: `${scheme}****@${host}`,
        url,
      });
    }
  }
  return [...found.values()];
}

/** `inlineAccepts`: whether --secrets inline --allow-secret-values would write it (not in the operator layout). */
export function urlCredentialProblem(found: UrlCredential, inlineAccepts = true, origin?: UrlOrigin): Diagnostic {
  const more = found.files.length - 1;
  // given in a file: told where it is to be corrected, not in an output file that was not written
  const given = origin?.position?.file !== undefined ? origin.position : undefined;
  return {
    ...(given ?? { file: found.file, line: found.line, column: found.column }),
    message: given
      ? `value ${origin!.path} holds a URL with credentials in it (${found.shown}), which the chart writes into ${found.file}` +
        `${more > 0 ? ` and ${more} more file${more === 1 ? '' : 's'}` : ''}: it would be committed`
      : `holds a URL with credentials in it (${found.shown})${more > 0 ? `, as ${more} more file${more === 1 ? '' : 's'} do` : ''}, which would be committed`,
    expected: 'no credential in a URL written to Git',
    hint:
      'give the URL without its credentials where you gave it (--set, --values, or gitops.values in the Config), ' +
      'and the credentials to Argo CD as a repository Secret (label argocd.argoproj.io/secret-type: repository) ' +
      'or to Flux as the GitRepository spec.secretRef' +
      (inlineAccepts ? '; or pass --secrets inline --allow-secret-values to accept it in Git' : ''),
  };
}
