/**
 * Worker thread for parse-pool.ts: parses the artifacts it is sent and posts back the objects
 * or the diagnostics. Loaded from the compiled dist/ layout next to parse-pool.js.
 */
import { parentPort, threadId } from 'node:worker_threads';
import { CapiGitopsError } from '../model/diagnostics.js';
import { parseArtifact } from './parse.js';
import type { ParseJob, ParseReply } from './parse-pool.js';

const port = parentPort;
if (port === null) throw new Error('parse-worker.js must run in a worker thread');

port.on('message', (job: ParseJob) => {
  const started = performance.now();
  let reply: ParseReply;
  try {
    const objects = parseArtifact(job.text, { source: job.source, maxBytes: job.maxBytes });
    reply = { id: job.id, threadId, ms: performance.now() - started, ok: true, objects };
  } catch (err) {
    const ms = performance.now() - started;
    reply =
      err instanceof CapiGitopsError
        ? { id: job.id, threadId, ms, ok: false, diagnostics: err.diagnostics }
        : { id: job.id, threadId, ms, ok: false, failure: err instanceof Error ? `${err.stack ?? err.message}` : String(err) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });
