/**
 * app/ is the only writer (DEVELOPERS.md): cli/ turns flags into options and prints. A cli/ module
 * that imports a file-writing function, or the modules that write trees and files, has taken a
 * command's work out of app/. The one exception is the internal-error log (cli/output.ts), an
 * append for the test runner, not an output of a command.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/paths.js';

const CLI = path.join(PROJECT_ROOT, 'src', 'cli');
const WRITERS = /\b(writeFile|writeFileSync|rename|renameSync|mkdir|mkdirSync|rm|rmSync|rmdir|unlink|unlinkSync|copyFile|symlink|open)\b/;
const WRITING_MODULES = ['core/atomic-write.js', 'core/prepared-file.js', 'output/write.js', 'output/new-directory.js'];

/** `file: what it imports that writes`, for every cli/ module that does. */
export function cliWriters(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    // a type-only import brings no code
    for (const [, names, from] of text.matchAll(/import\s+\{([^}]*)\}\s+from\s+'([^']+)'/g)) {
      if (/^node:fs(\/promises)?$/.test(from!) && WRITERS.test(names!.replace(/\bappendFileSync\b/, '')))
        found.push(`${file}: ${names!.trim()} from ${from}`);
      if (WRITING_MODULES.some((m) => from!.endsWith(`../${m}`))) found.push(`${file}: ${from}`);
    }
  }
  return found;
}

test('cli/ writes no file: every write is a command of app/', () => {
  const files = new Map(
    fs
      .readdirSync(CLI)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => [name, fs.readFileSync(path.join(CLI, name), 'utf8')] as const),
  );
  assert.ok(files.size > 5);
  assert.deepEqual(cliWriters(files), []);
});

test('the check finds a cli/ module that writes', () => {
  const found = cliWriters(
    new Map([
      ['a.ts', "import { mkdir, rename } from 'node:fs/promises';\n"],
      ['b.ts', "import { writeFileAtomic } from '../core/atomic-write.js';\n"],
      ['c.ts', "import { appendFileSync, existsSync } from 'node:fs';\n"],
      ['d.ts', "import type { WriteSummary } from '../output/write.js';\n"],
    ]),
  );
  assert.deepEqual(found, ['a.ts: mkdir, rename from node:fs/promises', 'b.ts: ../core/atomic-write.js']);
});
