import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBytes, lineFor, progressReporter } from '../../src/cli/progress.js';

function fakeStream(isTTY: boolean): NodeJS.WriteStream & { written: string[] } {
  const written: string[] = [];
  return { isTTY, written, write: (chunk: string) => (written.push(chunk), true) } as unknown as NodeJS.WriteStream & { written: string[] };
}

test('plain progress lines name the file, version and source; bytes only when a file is done', () => {
  assert.equal(
    lineFor({ type: 'resolve', source: 'https://github.com/kubernetes-sigs/cluster-api' }),
    'listing versions of https://github.com/kubernetes-sigs/cluster-api',
  );
  assert.equal(
    lineFor({ type: 'fetch', source: 'gh:capi', version: 'v1.12.0', file: 'core-components.yaml' }),
    'fetching core-components.yaml v1.12.0 from gh:capi',
  );
  assert.equal(
    lineFor({ type: 'done', source: 'gh:capi', version: 'v1.12.0', file: 'core-components.yaml', bytes: 1_468_006, cached: false }),
    'fetched core-components.yaml v1.12.0 (1.4 MiB)',
  );
  assert.equal(
    lineFor({ type: 'done', source: 'gh:capi', version: 'v1.12.0', file: 'metadata.yaml', bytes: 812, cached: true }),
    'fetched metadata.yaml v1.12.0 (812 B, from cache)',
  );
  assert.match(
    lineFor({ type: 'retry', url: 'https://api.github.com/x', attempt: 2, delayMs: 400.4, reason: '502' })!,
    /retrying https:\/\/api\.github\.com\/x in 400 ms \(attempt 2: 502\)/,
  );
  assert.equal(lineFor({ type: 'bytes', url: 'u', received: 10 }), undefined);
  assert.equal(formatBytes(2048), '2.0 KiB');
});

test('off a terminal, or in CI, progress is plain lines on the stream; --quiet prints nothing', async () => {
  const pipe = fakeStream(false);
  const reporter = await progressReporter({ stream: pipe, env: {} });
  reporter.onProgress({ type: 'fetch', source: 's', version: 'v1', file: 'f.yaml' });
  reporter.onProgress({ type: 'bytes', url: 'u', received: 5 });
  reporter.stop();
  assert.deepEqual(pipe.written, ['fetching f.yaml v1 from s\n']);

  const ciTerminal = fakeStream(true);
  (await progressReporter({ stream: ciTerminal, env: { CI: 'true' } })).onProgress({
    type: 'fetch',
    source: 's',
    version: 'v1',
    file: 'f.yaml',
  });
  assert.deepEqual(ciTerminal.written, ['fetching f.yaml v1 from s\n']);

  // --offline makes no request: a file is said to be read from the cache once the cache gave it, not
  // when it is asked for (the cache may lack it); a listing is looked for there
  const offline = fakeStream(false);
  const offlineReporter = await progressReporter({ stream: offline, env: {}, offline: true });
  offlineReporter.onProgress({ type: 'resolve', source: 's' });
  offlineReporter.onProgress({ type: 'fetch', source: 's', version: 'v1', file: 'f.yaml' });
  offlineReporter.onProgress({ type: 'done', source: 's', version: 'v1', file: 'f.yaml', bytes: 812, cached: true });
  assert.deepEqual(offline.written, [
    'looking in the cache for the versions of s (--offline)\n',
    'read f.yaml v1 of s from the cache (812 B, --offline)\n',
  ]);

  const quiet = fakeStream(false);
  (await progressReporter({ stream: quiet, env: {}, quiet: true })).onProgress({
    type: 'fetch',
    source: 's',
    version: 'v1',
    file: 'f.yaml',
  });
  assert.deepEqual(quiet.written, []);
});
