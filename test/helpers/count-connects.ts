/**
 * Preloaded into a child CLI process (`node --import …/count-connects.js`): counts every TCP
 * connection attempt Node's fetch (undici) makes, per host:port, and writes the counts as JSON
 * to $COUNT_CONNECTS_FILE when the process exits. A test can so prove that a refused connection
 * was not tried again, without timing anything.
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';

const counts: Record<string, number> = {};
subscribe('undici:client:beforeConnect', (message) => {
  const { connectParams } = message as { connectParams: { hostname: string; port: string | number } };
  const key = `${connectParams.hostname}:${connectParams.port}`;
  counts[key] = (counts[key] ?? 0) + 1;
});
process.on('exit', () => {
  if (process.env.COUNT_CONNECTS_FILE) writeFileSync(process.env.COUNT_CONNECTS_FILE, JSON.stringify(counts));
});
