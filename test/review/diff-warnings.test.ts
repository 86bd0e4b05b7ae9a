/**
 * `diff` renders the manifest, so it tells that render's warnings as `render` and `check` do: a
 * reviewer of a pull request reads diff's output, not render's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { exampleCopy, runCli } from '../helpers/cli.js';

test('diff warns of Config.overrides (objects the GitOps tool does not enforce), once, as render and check do', async () => {
  const example = exampleCopy();
  writeFileSync(
    path.join(example, 'management-cluster', 'overrides.yaml'),
    'apiVersion: capi-gitops.dev/v1alpha1\nkind: Config\noverrides:\n' +
      '- {kind: Deployment, group: apps, name: capi-controller-manager, namespace: capi-system, unmanaged: true}\n',
  );
  const told = /^warning: Config\.overrides: 1 object\(s\) rendered but not enforced by the GitOps tool: /gm;
  for (const command of ['render', 'check', 'diff']) {
    const result = await runCli([command, '-f', 'management-cluster', '-o', 'out'], { cwd: example });
    assert.equal(result.code, 0, `${command}: ${result.stderr}`);
    assert.equal(result.stderr.match(told)?.length, 1, `${command}: ${result.stderr}`);
  }
});
