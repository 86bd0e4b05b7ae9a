/**
 * The lockfile's model check, over the `yaml` library's nodes (lockfile.ts `parseLockfile`):
 * every problem at its line and column.
 */
import YAML, { type LineCounter, type Node as YamlNode, type YAMLMap, type YAMLSeq } from 'yaml';
import type { LabelSelector, LabelSelectorRequirement } from '../../manifest/types.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import { PROVIDER_KINDS } from '../../core/provider.js';
import { parseSemantic } from '../../core/versions.js';
import { shellWord } from '../../core/shell.js';
import {
  LOCK_API_VERSION,
  LOCK_KIND,
  describeEntry,
  normalizeLockfile,
  sameIdentity,
  type LockedFile,
  type LockedImage,
  type LockEntry,
  type Lockfile,
  type LockKind,
  type LockSource,
} from './types.js';

const ENTRY_KINDS: readonly string[] = ['CertManager', 'Operator', ...PROVIDER_KINDS];
/** Entries without a Cluster API contract. */
const UNCONTRACTED_KINDS: readonly string[] = ['CertManager', 'Operator'];
const SELECTOR_OPERATORS: readonly string[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
const SHA256 = /^[0-9a-f]{64}$/;
const IMAGE_DIGEST = /^sha256:[0-9a-f]{64}$/;
/** `lock` reads the lockfile too, so a malformed one must go first; its digests are then taken anew. */
export function regenerateHint(file: string): string {
  return `fix it here, restore it from Git, or \`rm ${shellWord(file)}\` and \`capi-gitops lock\`: that takes each file's sha256 as it is now (and render, each pinned image's digest)`;
}

interface LockPair {
  key: YamlNode;
  value: YamlNode | null;
}

/** A scalar's value; undefined for a collection or nothing. */
function scalar(node: YamlNode | null | undefined): unknown {
  return YAML.isScalar(node) ? node.value : undefined;
}

function pairs(node: YamlNode): LockPair[] {
  return (node as YAMLMap<YamlNode, YamlNode | null>).items;
}

/** Validates the parsed YAML against the lock model, collecting every problem with its position. */
export class LockReader {
  readonly problems: Diagnostic[] = [];

  constructor(
    private readonly file: string,
    private readonly lineCounter: LineCounter,
  ) {}

  /** Records a problem at the node's start; returns undefined so callers can `return this.problem(…)`. */
  problem(node: YamlNode | null | undefined, fieldPath: string, message: string, expected?: string): undefined {
    const { line, col: column } = this.lineCounter.linePos(node?.range?.[0] ?? 0);
    this.problems.push({ file: this.file, line, column, path: fieldPath || undefined, message, expected, hint: regenerateHint(this.file) });
    return undefined;
  }

  /** The mapping's pairs by key, reporting keys that are not allowed. */
  fields(node: YamlNode, fieldPath: string, allowed: readonly string[]): Map<string, LockPair> | undefined {
    if (!YAML.isMap(node)) {
      this.problem(node, fieldPath, 'expected a mapping');
      return undefined;
    }
    const fields = new Map<string, LockPair>();
    for (const pair of pairs(node)) {
      const key = scalar(pair.key);
      if (typeof key !== 'string' || !allowed.includes(key)) {
        this.problem(
          pair.key,
          fieldPath,
          `unknown field ${JSON.stringify(YAML.isScalar(pair.key) ? key : null)}`,
          `only ${allowed.join(', ')}`,
        );
        continue;
      }
      fields.set(key, pair);
    }
    return fields;
  }

  /** A required string field ("" allowed only when `allowEmpty`). */
  string(fields: Map<string, LockPair>, owner: YamlNode, parentPath: string, key: string, allowEmpty = false): string | undefined {
    const pair = fields.get(key);
    const fieldPath = join(parentPath, key);
    if (pair === undefined) {
      this.problem(owner, parentPath, `missing field "${key}"`);
      return undefined;
    }
    const value = scalar(pair.value);
    if (typeof value !== 'string') {
      this.problem(pair.value ?? pair.key, fieldPath, 'expected a string');
      return undefined;
    }
    if (value === '' && !allowEmpty) {
      this.problem(pair.value, fieldPath, 'must not be empty');
      return undefined;
    }
    return value;
  }

  sequence(fields: Map<string, LockPair>, owner: YamlNode, parentPath: string, key: string): YamlNode[] | undefined {
    const pair = fields.get(key);
    if (pair === undefined) {
      this.problem(owner, parentPath, `missing field "${key}"`);
      return undefined;
    }
    if (!YAML.isSeq(pair.value)) {
      this.problem(pair.value ?? pair.key, join(parentPath, key), 'expected a list');
      return undefined;
    }
    return (pair.value as YAMLSeq<YamlNode>).items;
  }

  lock(root: YamlNode): Lockfile | undefined {
    const fields = this.fields(root, '', ['apiVersion', 'kind', 'entries']);
    if (!fields) return undefined;
    const apiVersion = this.string(fields, root, '', 'apiVersion');
    if (apiVersion !== undefined && apiVersion !== LOCK_API_VERSION) {
      this.problem(fields.get('apiVersion')!.value, 'apiVersion', `unsupported lockfile apiVersion "${apiVersion}"`, LOCK_API_VERSION);
    }
    const kind = this.string(fields, root, '', 'kind');
    if (kind !== undefined && kind !== LOCK_KIND) this.problem(fields.get('kind')!.value, 'kind', `kind is "${kind}"`, LOCK_KIND);
    const items = this.sequence(fields, root, '', 'entries') ?? [];
    const entries: LockEntry[] = [];
    items.forEach((item, index) => {
      const entry = this.entry(item, `entries[${index}]`);
      if (entry === undefined) return;
      // a fleet's lock has one entry per component and set of clusters
      const earlier = entries.find(
        (other) =>
          sameIdentity(other, entry) && (!other.clusters || !entry.clusters || other.clusters.some((c) => entry.clusters!.includes(c))),
      );
      if (earlier)
        this.problem(
          item,
          `entries[${index}]`,
          `${describeEntry(entry)} appears twice${entry.clusters ? ' for one cluster' : ''}`,
          'one entry per kind, namespace and name (per cluster in a fleet)',
        );
      else entries.push(entry);
    });
    return this.problems.length === 0 ? normalizeLockfile({ entries }) : undefined;
  }

  private entry(node: YamlNode, at: string): LockEntry | undefined {
    const fields = this.fields(node, at, [
      'kind',
      'name',
      'namespace',
      'clusters',
      'requestedVersion',
      'version',
      'contract',
      'source',
      'files',
      'images',
    ]);
    if (!fields) return undefined;
    const before = this.problems.length;
    const kind = this.string(fields, node, at, 'kind');
    if (kind !== undefined && !ENTRY_KINDS.includes(kind))
      this.problem(fields.get('kind')!.value, join(at, 'kind'), `unknown kind "${kind}"`, `one of ${ENTRY_KINDS.join(', ')}`);
    const name = this.string(fields, node, at, 'name');
    const namespace = this.string(fields, node, at, 'namespace');
    const requestedVersion = this.string(fields, node, at, 'requestedVersion', true);
    const version = this.string(fields, node, at, 'version');
    if (version !== undefined && parseSemantic(version) === null)
      this.problem(
        fields.get('version')!.value,
        join(at, 'version'),
        `"${version}" is not a semantic version`,
        'a release tag such as v1.12.0',
      );
    let contract: string | undefined;
    // a mistyped kind is one problem: whether it needs a contract is not known
    if (fields.has('contract') || (kind !== undefined && ENTRY_KINDS.includes(kind) && !UNCONTRACTED_KINDS.includes(kind)))
      contract = this.string(fields, node, at, 'contract');
    const source = fields.has('source')
      ? this.source(fields.get('source')!.value, join(at, 'source'))
      : this.problem(node, at, 'missing field "source"');
    const files = (this.sequence(fields, node, at, 'files') ?? []).map((file, index) => this.fileEntry(file, `${at}.files[${index}]`));
    this.checkUniqueFiles(files, fields.get('files')?.value, join(at, 'files'));
    if (this.problems.length > before) return undefined;
    const entry: LockEntry = {
      kind: kind as LockKind,
      name: name!,
      namespace: namespace!,
      requestedVersion: requestedVersion!,
      version: version!,
      source: source!,
      files: files as LockedFile[],
    };
    if (contract !== undefined) entry.contract = contract;
    // `images:` with nothing under it (its last image's two lines deleted, as a moved tag's hint in a fleet says) locks none
    const imagesNode = fields.get('images')?.value;
    const noImages = imagesNode === null || (YAML.isScalar(imagesNode) && imagesNode.value === null);
    if (fields.has('images') && !noImages) {
      const images = (this.sequence(fields, node, at, 'images') ?? []).map((image, index) =>
        this.imageEntry(image, `${at}.images[${index}]`),
      );
      const seen = new Set<string>();
      for (const image of images) {
        if (image && seen.has(image.image))
          this.problem(fields.get('images')!.value, join(at, 'images'), `image "${image.image}" is listed twice`);
        if (image) seen.add(image.image);
      }
      if (this.problems.length > before) return undefined;
      entry.images = images as LockedImage[];
    }
    if (fields.has('clusters')) {
      const clusters = (this.sequence(fields, node, at, 'clusters') ?? []).map((c, i) =>
        typeof scalar(c) === 'string' && scalar(c) !== ''
          ? (scalar(c) as string)
          : this.problem(c, `${at}.clusters[${i}]`, 'expected a cluster name'),
      );
      if (clusters.length === 0) this.problem(fields.get('clusters')!.value, join(at, 'clusters'), 'expected at least one cluster name');
      if (this.problems.length > before) return undefined;
      entry.clusters = clusters as string[];
    }
    return entry;
  }

  private checkUniqueFiles(files: (LockedFile | undefined)[], node: YamlNode | null | undefined, at: string): void {
    const seen = new Set<string>();
    for (const file of files) {
      if (file === undefined) continue;
      if (seen.has(file.name)) this.problem(node, at, `file "${file.name}" is listed twice`);
      seen.add(file.name);
    }
  }

  private fileEntry(node: YamlNode, at: string): LockedFile | undefined {
    const fields = this.fields(node, at, ['name', 'url', 'sha256']);
    if (!fields) return undefined;
    const name = this.string(fields, node, at, 'name');
    const url = this.string(fields, node, at, 'url');
    const sha256 = this.string(fields, node, at, 'sha256');
    if (sha256 !== undefined && !SHA256.test(sha256)) {
      this.problem(fields.get('sha256')!.value, join(at, 'sha256'), 'not a sha256 digest', '64 lower-case hexadecimal digits');
      return undefined;
    }
    return name !== undefined && url !== undefined && sha256 !== undefined ? { name, url, sha256 } : undefined;
  }

  private imageEntry(node: YamlNode, at: string): LockedImage | undefined {
    const fields = this.fields(node, at, ['image', 'digest']);
    if (!fields) return undefined;
    const image = this.string(fields, node, at, 'image');
    const digest = this.string(fields, node, at, 'digest');
    if (digest !== undefined && !IMAGE_DIGEST.test(digest)) {
      this.problem(fields.get('digest')!.value, join(at, 'digest'), 'not a sha256 digest', 'sha256:<64 lower-case hexadecimal digits>');
      return undefined;
    }
    return image !== undefined && digest !== undefined ? { image, digest } : undefined;
  }

  private source(node: YamlNode | null, at: string): LockSource | undefined {
    if (node === null) return this.problem(node, at, 'expected a mapping');
    const fields = this.fields(node, at, ['url', 'registry', 'oci', 'selector']);
    if (!fields) return undefined;
    if (fields.size !== 1) {
      this.problem(node, at, `a source has exactly one of url, registry, oci and selector, found ${fields.size}`);
      return undefined;
    }
    const [key] = [...fields.keys()];
    if (key === 'selector') {
      const selector = this.selector(fields.get(key)!.value, join(at, 'selector'));
      return selector && { type: 'selector', selector };
    }
    const value = this.string(fields, node, at, key);
    if (value === undefined) return undefined;
    if (key === 'oci') return { type: 'oci', oci: value };
    return { type: key as 'url' | 'registry', url: value };
  }

  private selector(node: YamlNode | null, at: string): LabelSelector | undefined {
    if (node === null) return this.problem(node, at, 'expected a mapping');
    const fields = this.fields(node, at, ['matchLabels', 'matchExpressions']);
    if (!fields) return undefined;
    const selector: LabelSelector = {};
    const labelsPair = fields.get('matchLabels');
    if (labelsPair) selector.matchLabels = this.labels(labelsPair.value ?? labelsPair.key, join(at, 'matchLabels'));
    if (fields.has('matchExpressions')) {
      selector.matchExpressions = (this.sequence(fields, node, at, 'matchExpressions') ?? [])
        .map((item, index) => this.requirement(item, `${at}.matchExpressions[${index}]`))
        .filter((r): r is LabelSelectorRequirement => r !== undefined);
    }
    return selector;
  }

  private labels(node: YamlNode, at: string): Record<string, string> {
    const labels: Record<string, string> = {};
    if (!YAML.isMap(node)) return this.problem(node, at, 'expected a mapping') ?? labels;
    for (const pair of pairs(node)) {
      const key = scalar(pair.key);
      const value = scalar(pair.value);
      if (typeof key !== 'string') this.problem(pair.key, at, 'expected a string label key');
      else if (typeof value !== 'string') this.problem(pair.value ?? pair.key, join(at, key), 'expected a string');
      else labels[key] = value;
    }
    return labels;
  }

  private requirement(node: YamlNode, at: string): LabelSelectorRequirement | undefined {
    const fields = this.fields(node, at, ['key', 'operator', 'values']);
    if (!fields) return undefined;
    const key = this.string(fields, node, at, 'key');
    const operator = this.string(fields, node, at, 'operator');
    if (operator !== undefined && !SELECTOR_OPERATORS.includes(operator))
      this.problem(fields.get('operator')!.value, join(at, 'operator'), `unknown operator "${operator}"`, SELECTOR_OPERATORS.join(', '));
    let values: string[] | undefined;
    if (fields.has('values')) {
      values = [];
      for (const item of this.sequence(fields, node, at, 'values') ?? []) {
        const value = scalar(item);
        if (typeof value === 'string') values.push(value);
        else this.problem(item, join(at, 'values'), 'expected a string');
      }
    }
    if (key === undefined || operator === undefined || !SELECTOR_OPERATORS.includes(operator)) return undefined;
    const requirement: LabelSelectorRequirement = { key, operator: operator as LabelSelectorRequirement['operator'] };
    if (values !== undefined) requirement.values = values;
    return requirement;
  }
}

function join(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}
