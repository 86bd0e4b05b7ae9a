#!/usr/bin/env node
/**
 * The pull-request comment: one per pull request, found by its marker among all the comments
 * (every page, following GitHub's Link header) and updated in place, else created. A token that
 * may not write (a pull request from a fork gets a read-only one: 403) skips the comment with a
 * notice; the diff is still in the job summary. Environment: GITHUB_TOKEN, GITHUB_API_URL,
 * GITHUB_REPOSITORY, PR_NUMBER, DIFF_FILE.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const MARKER = '<!-- capi-gitops diff -->';

/** 100 pages of 100: a pull request with more comments gets a new one rather than a long crawl. */
const MAX_PAGES = 100;

class HttpError extends Error {
  constructor(method, url, status, text) {
    super(`${method} ${url}: ${status} ${text.slice(0, 500)}`);
    this.status = status;
  }
}

/** The URL of Link's rel="next", when it has one. */
export function nextLink(header) {
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match) return match[1];
  }
  return undefined;
}

/** `{ action: 'created' | 'updated' | 'skipped', id? }`; throws on any other failure. */
export async function postComment(env, write = (line) => process.stdout.write(`${line}\n`)) {
  const apiRoot = env.GITHUB_API_URL.replace(/\/+$/, '');
  const issues = `${apiRoot}/repos/${env.GITHUB_REPOSITORY}/issues`;
  const headers = {
    authorization: `Bearer ${env.GITHUB_TOKEN}`,
    accept: 'application/vnd.github+json',
    'content-type': 'application/json',
    'user-agent': 'capi-gitops-action',
  };
  const body = `${MARKER}\n${readFileSync(env.DIFF_FILE, 'utf8')}`;
  const call = async (url, method, payload) => {
    const res = await fetch(url, { method, headers, body: payload && JSON.stringify(payload) });
    if (!res.ok) throw new HttpError(method, url, res.status, await res.text());
    return { json: await res.json(), link: res.headers.get('link') };
  };
  try {
    let mine;
    let url = `${issues}/${env.PR_NUMBER}/comments?per_page=100`;
    for (let page = 0; url && !mine && page < MAX_PAGES; page++) {
      const { json, link } = await call(url, 'GET');
      mine = json.find((c) => typeof c.body === 'string' && c.body.startsWith(MARKER));
      url = nextLink(link);
      // the token goes to GitHub's API only, never to a host a Link header names
      if (url && new URL(url).origin !== new URL(apiRoot).origin) throw new Error(`a Link header points away from ${apiRoot}: ${url}`);
    }
    if (mine) {
      await call(`${issues}/comments/${mine.id}`, 'PATCH', { body });
      return { action: 'updated', id: mine.id };
    }
    const { json } = await call(`${issues}/${env.PR_NUMBER}/comments`, 'POST', { body });
    return { action: 'created', id: json.id };
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 403) throw err;
    write(
      '::notice title=capi-gitops::the pull-request comment was skipped: the token may not write to this pull request ' +
        '(403; pull requests from forks get a read-only token). The diff is in the job summary.',
    );
    return { action: 'skipped' };
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    await postComment(process.env);
  } catch (err) {
    process.stderr.write(`::error title=capi-gitops comment::${String(err.message).replace(/%/g, '%25').replace(/\r?\n/g, '%0A')}\n`);
    process.exitCode = 1;
  }
}
