import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { declaredSecretFiles } from '../../src/review/secret-files.js';

/**
 * The forms a secret takes in text, computed here independently of src/secrets: the value, and
 * base64 of it and of its base64 at each of the three byte offsets (only characters that
 * depend on the value alone).
 */
function forms(value: string): string[] {
  const out = new Set<string>([value]);
  for (const bytes of [Buffer.from(value), Buffer.from(Buffer.from(value).toString('base64'))]) {
    for (let pad = 0; pad < 3; pad++) {
      const encoded = Buffer.concat([Buffer.alloc(pad, 0x41), bytes]).toString('base64');
      const inner = encoded.slice([0, 2, 3][pad], Math.floor(((pad + bytes.length) * 4) / 3));
      if (inner.length >= 8) out.add(inner);
    }
  }
  return [...out];
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/**
 * Fails when any secret, in any form, is in an output directory, a lockfile, stdout, stderr or a
 * diff (`texts`), except in `allowedFiles` (inline output).
 */
export function assertNoSecret(secrets: readonly string[], where: { dirs?: string[]; files?: string[]; texts?: Record<string, string>; allowedFiles?: string[] }): void {
  const allowed = new Set((where.allowedFiles ?? []).map((f) => path.resolve(f)));
  const haystacks: [string, string][] = Object.entries(where.texts ?? {});
  for (const file of [...(where.dirs ?? []).flatMap(filesUnder), ...(where.files ?? []).filter(existsSync)]) {
    if (!allowed.has(path.resolve(file))) haystacks.push([file, readFileSync(file, 'utf8')]);
  }
  for (const secret of secrets) {
    for (const form of forms(secret)) {
      for (const [name, text] of haystacks) assert.ok(!text.includes(form), `a secret (form ${forms(secret).indexOf(form)}) is in ${name}`);
    }
  }
}

/**
 * The files an output directory declares as holding secret values (the inline strategy's
 * warning section of its README), as absolute paths: the only places a secret may be.
 */
export function inlineSecretFiles(outputDir: string): string[] {
  const readme = path.join(outputDir, 'README.md');
  if (!existsSync(readme)) return [];
  return [...declaredSecretFiles(new Map([['README.md', readFileSync(readme, 'utf8')]]))].map((f) => path.join(outputDir, f)).sort();
}
