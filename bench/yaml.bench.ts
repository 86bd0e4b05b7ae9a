/**
 * YAML I/O benchmark on the render-sized corpus set (core + bootstrap + control-plane kubeadm
 * v1.12.0 and cert-manager v1.13.0, ~3.6 MB): the `yaml` library against src/yaml, for parsing
 * and emitting, cold (a fresh process, as the CLI runs) and warm (median of repeated runs).
 *
 *   npx tsc -p tsconfig.json && node dist/bench/yaml.bench.js
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { parseArtifact } from '../src/yaml/parse.js';
import { emitYamlDocument, EMIT_LIBRARY_OPTIONS } from '../src/yaml/emit.js';
import type { KObject } from '../src/core/kobject.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPOSITORY = path.resolve(here, '..', '..', '..', 'shared', 'corpus', 'repository');
const FILES = [
  'cluster-api/v1.12.0/core-components.yaml',
  'bootstrap-kubeadm/v1.12.0/bootstrap-components.yaml',
  'control-plane-kubeadm/v1.12.0/control-plane-components.yaml',
  'cert-manager/v1.13.0/cert-manager.yaml',
];

const inputs = FILES.map((f) => ({ text: fs.readFileSync(path.join(REPOSITORY, f), 'utf8'), source: f }));

function libraryParse(): unknown[] {
  const out: unknown[] = [];
  for (const { text } of inputs) for (const doc of YAML.parseAllDocuments(text, { version: '1.1' })) out.push(doc.toJS());
  return out;
}
function ourParse(): KObject[] {
  return inputs.flatMap((i) => parseArtifact(i.text, { source: i.source }));
}

const VARIANTS: Record<string, (objects: KObject[]) => unknown | Promise<unknown>> = {
  'parse:library': () => libraryParse(),
  'parse:ours': () => ourParse(),
  'emit:library': (objects) => objects.map((o) => YAML.stringify(o, EMIT_LIBRARY_OPTIONS)),
  'emit:ours': (objects) => objects.map((o) => emitYamlDocument(o)),
};

async function timeOnce(name: string, objects: KObject[]): Promise<{ wall: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await VARIANTS[name](objects);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

/** Child mode: one cold run of one variant, printed as JSON. */
async function coldChild(name: string): Promise<void> {
  // Emitting needs objects: parse them first (with the library, so our code stays cold).
  const objects = name.startsWith('emit:') ? (libraryParse() as KObject[]) : [];
  console.log(JSON.stringify(await timeOnce(name, objects)));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  const chars = inputs.reduce((n, i) => n + i.text.length, 0);
  console.log(`corpus set: ${FILES.length} files, ${(chars / 1e6).toFixed(2)} M characters`);
  const cold: Record<string, number> = {};
  for (const name of Object.keys(VARIANTS)) {
    const runs = [0, 1, 2].map(() => {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--cold', name], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(child.stderr);
      return JSON.parse(child.stdout) as { wall: number; cpu: number };
    });
    cold[name] = median(runs.map((r) => r.wall));
    console.log(
      `cold  ${name.padEnd(30)} wall ${cold[name].toFixed(1).padStart(7)} ms   cpu ${median(runs.map((r) => r.cpu))
        .toFixed(1)
        .padStart(7)} ms`,
    );
  }
  const objects = ourParse();
  const warm: Record<string, number> = {};
  for (const name of Object.keys(VARIANTS)) {
    const walls: number[] = [];
    for (let i = 0; i < 7; i++) walls.push((await timeOnce(name, objects)).wall);
    warm[name] = median(walls);
    console.log(`warm  ${name.padEnd(30)} wall ${warm[name].toFixed(1).padStart(7)} ms (median of 7)`);
  }
  const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}x`;
  console.log(
    `parse: ours is ${ratio(cold['parse:library'], cold['parse:ours'])} faster cold, ${ratio(warm['parse:library'], warm['parse:ours'])} warm`,
  );
  console.log(
    `emit:  ours is ${ratio(cold['emit:library'], cold['emit:ours'])} faster cold, ${ratio(warm['emit:library'], warm['emit:ours'])} warm`,
  );
}

const coldIndex = process.argv.indexOf('--cold');
await (coldIndex >= 0 ? coldChild(process.argv[coldIndex + 1]) : main());
