/**
 * `diff` against the committed output says what a render would do with each file there, as
 * `check` does: render removes only a file its ownership index proves its own (src/output/write.ts)
 * and leaves any other file as it is, so that file's objects are neither removed nor changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { exampleCopy, runCli } from '../helpers/cli.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import type { ReviewReport } from '../../src/review/types.js';

const diffSchema = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schema', 'capi-gitops-diff.schema.json'), 'utf8'));
const validateJson = new Ajv.default({ allErrors: true, strict: true }).compile(diffSchema);

const TEAM_NOTES = '01-cluster-api/team-notes.yaml';
const SERVICE = '04-infrastructure-example/service-capex-webhook-service.yaml';

async function renderedExample(): Promise<{ example: string; run: (...args: string[]) => ReturnType<typeof runCli> }> {
  const example = exampleCopy();
  const run = async (...args: string[]) => await runCli(args, { cwd: example });
  const rendered = await run('render', '-f', 'management-cluster', '-o', 'out');
  assert.equal(rendered.code, 0, rendered.stderr);
  // a file a person added beside the rendered ones: not in the ownership index
  writeFileSync(
    path.join(example, 'out', TEAM_NOTES),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: team-notes\n  namespace: capi-system\ndata:\n  owner: platform\n',
  );
  return { example, run };
}

async function jsonDiff(run: (...args: string[]) => ReturnType<typeof runCli>): Promise<ReviewReport> {
  const result = await run('diff', '-f', 'management-cluster', '-o', 'out', '--format', 'json');
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout) as ReviewReport;
  assert.ok(validateJson(report), JSON.stringify(validateJson.errors, null, 2));
  return report;
}

async function checkProblems(
  run: (...args: string[]) => ReturnType<typeof runCli>,
): Promise<{ path: string; status: string; removeByHand?: true }[]> {
  const result = await run('check', '-f', 'management-cluster', '-o', 'out', '--json');
  return (JSON.parse(result.stdout) as { problems: { path: string; status: string; removeByHand?: true }[] }).problems;
}

test('diff: the objects of a hand-written file in the output are not "removed" (render leaves it); it is named as left in place, and check names it extra, to remove by hand', async () => {
  const { run } = await renderedExample();
  const report = await jsonDiff(run);
  assert.deepEqual(report.summary, { added: 0, removed: 0, changed: 0, warnings: 0, risk: 'none' });
  assert.deepEqual(report.components, []);
  assert.deepEqual(report.leftInPlace, [TEAM_NOTES]);
  const text = await run('diff', '-f', 'management-cluster', '-o', 'out');
  assert.doesNotMatch(text.stdout, /team-notes\n/);
  assert.match(text.stdout, /no object changed/);
  assert.match(text.stdout, new RegExp(`left in place: .*${TEAM_NOTES}`));
  assert.match((await run('diff', '-f', 'management-cluster', '-o', 'out', '--format', 'markdown')).stdout, /left in place/i);
  assert.equal((await run('diff', '-f', 'management-cluster', '-o', 'out', '--detailed-exitcode')).code, 0, 'no object changes');
  assert.deepEqual(
    (await checkProblems(run)).map((p) => [p.status, p.path, p.removeByHand]),
    [['extra', TEAM_NOTES, true]],
  );
});

test('diff: a file a person added that holds no objects (a string, not YAML) is left in place and read on neither side, not an error twice with a hint to restore a file render never wrote; check names it extra', async () => {
  const { example, run } = await renderedExample();
  const notes = '01-cluster-api/notes.yaml';
  writeFileSync(path.join(example, 'out', notes), '"reviewed by the platform team"\n');
  const report = await jsonDiff(run);
  assert.deepEqual(report.summary, { added: 0, removed: 0, changed: 0, warnings: 0, risk: 'none' });
  assert.deepEqual(report.leftInPlace, [notes, TEAM_NOTES]);
  assert.deepEqual(
    (await checkProblems(run)).map((p) => [p.status, p.path, p.removeByHand]),
    [
      ['extra', notes, true],
      ['extra', TEAM_NOTES, true],
    ],
  );
});

test('diff: a provider taken out of the manifest: the files render prunes are removed, one edited since (render keeps it) is left in place; check and the render itself agree', async () => {
  const { example, run } = await renderedExample();
  const providers = path.join(example, 'management-cluster', 'providers.yaml');
  const text = readFileSync(providers, 'utf8');
  writeFileSync(providers, text.slice(0, text.lastIndexOf('---')));
  assert.equal((await run('lock', '-f', 'management-cluster')).code, 0);
  writeFileSync(path.join(example, 'out', SERVICE), readFileSync(path.join(example, 'out', SERVICE), 'utf8') + '# kept by the team\n');

  const report = await jsonDiff(run);
  assert.deepEqual(report.leftInPlace, [TEAM_NOTES, SERVICE]);
  const removed = report.components.flatMap((c) => c.kinds.flatMap((k) => k.objects.map((o) => [c.directory, o.change, o.file])));
  assert.ok(removed.length > 0);
  assert.ok(
    removed.every(([directory, change]) => directory === '04-infrastructure-example' && change === 'removed'),
    JSON.stringify(removed),
  );
  assert.ok(!removed.some(([, , file]) => file === SERVICE || file === TEAM_NOTES));

  const problems = await checkProblems(run);
  assert.deepEqual(
    problems.filter((p) => p.removeByHand).map((p) => p.path),
    [TEAM_NOTES, SERVICE],
  );
  const pruned = new Set(problems.filter((p) => p.status === 'extra' && !p.removeByHand).map((p) => p.path));
  for (const [, , file] of removed) assert.ok(pruned.has(file!), `check: render would remove ${file}`);

  // the truth: what the render then does
  assert.equal((await run('render', '-f', 'management-cluster', '-o', 'out')).code, 0);
  for (const file of report.leftInPlace!) assert.ok(existsSync(path.join(example, 'out', file)), `${file} is still there`);
  for (const [, , file] of removed) assert.ok(!existsSync(path.join(example, 'out', file!)), `${file} was removed`);
});
