/** What every network source module takes from a request and the run's options. */
import { CapiGitopsError } from '../../core/diagnostics.js';
import { configSecretCredentialProblems } from '../credentials.js';
import type { RepositoryRequest, SourceContext } from '../request.js';

/** Only http(s) URLs can be a network module's; anything else is answered without loading one. */
export function isHttpUrl(url: string | undefined): url is string {
  return url !== undefined && /^https?:\/\//i.test(url);
}

/** The run's network options for one request; a configSecret token a header cannot carry is refused before any request. */
export function networkOptions(request: RepositoryRequest, context: SourceContext) {
  const { cache, offline, http, log, warn, onProgress, env, runMemo } = context.options;
  const credentialProblems = configSecretCredentialProblems(request.credentials ?? {}, request.origin);
  if (credentialProblems.length > 0) throw new CapiGitopsError(credentialProblems);
  return {
    cache,
    offline,
    http,
    log,
    warn,
    onProgress,
    env,
    runMemo,
    origin: request.origin,
    credentials: request.credentials ? { ...request.credentials } : undefined,
  };
}
