/**
 * One run's shared state: a single cluster and every cluster of a fleet go through the same
 * context, so a fleet is a loop, not a second pipeline. Each memo is keyed by a digest, never by
 * a large string: V8 hashes a string over 16,383 characters by its length, so a Map keyed by
 * same-length artifact texts compares megabytes on every lookup (issue 24).
 */
import type { KObject } from '../core/kobject.js';
import { CapiGitopsError } from '../core/diagnostics.js';
import { sha256Hex } from '../core/digest.js';
import type { Artifact, ProviderRepository } from '../core/repository.js';
import { parseArtifacts, PARSER_VERSION } from '../yaml/parse.js';
import { YamlBudget } from '../yaml/bounds.js';
import type { ArtifactCache } from '../sources/cache.js';
import { sharedBlobs, type SharedBlobs } from '../resolve/lock/session.js';
import { substituteVariables, type SubstitutionResult } from '../render/variables.js';
import type { RenderedComponent, VariableLookup, VariableValue } from '../render/types.js';
import { BatchParseError, type CacheableParseInput, type TextParser } from '../render/component.js';

/** A memo entry: the first caller's promise, shared by every later caller of the same key. */
function once<T>(memo: Map<string, T>, key: string, load: () => T): T {
  let value = memo.get(key);
  if (value === undefined) {
    value = load();
    memo.set(key, value);
  }
  return value;
}

export class RunContext {
  /** Cached files read, and downloads stored, once per run (resolve/lock/session.ts). */
  readonly blobs: SharedBlobs = sharedBlobs();
  /** Files of components already laid out in this run, reused by every cluster that shares the component. */
  readonly componentFiles = new WeakMap<RenderedComponent, Map<string, string>>();
  readonly stats = {
    fetching: { requested: 0, fetched: 0 },
    parsing: { requested: 0, parsed: 0 },
    substitution: { requested: 0, substituted: 0 },
    rendering: { requested: 0, rendered: 0 },
  };

  private readonly files = new Map<string, Promise<Artifact>>();
  private readonly versions = new Map<string, Promise<string[]>>();
  private readonly parsed = new Map<string, Promise<KObject[]>>();
  private readonly substituted = new Map<string, { asked: Map<string, VariableValue | undefined>; result: SubstitutionResult }[]>();
  private readonly objectIds = new WeakMap<KObject[], number>();
  private nextObjectId = 0;
  private readonly rendered = new Map<string, RenderedComponent>();
  private pending: { input: CacheableParseInput; resolve: (objects: KObject[]) => void; reject: (err: unknown) => void }[] = [];

  constructor(private readonly cache: ArtifactCache | undefined) {}

  /** Wraps a repository so each (source, version, file) is fetched once per run, whichever cluster asks first. */
  repository = (repository: ProviderRepository): ProviderRepository => {
    const where = `${repository.sourceType}\0${repository.location}`;
    return {
      sourceType: repository.sourceType,
      location: repository.location,
      defaultVersion: repository.defaultVersion,
      componentsFile: repository.componentsFile,
      listVersions: () => once(this.versions, where, () => repository.listVersions()),
      getFile: (version, fileName) => {
        this.stats.fetching.requested++;
        const key = `${where}\0${version}\0${fileName}`;
        if (!this.files.has(key)) this.stats.fetching.fetched++;
        return once(this.files, key, () => repository.getFile(version, fileName));
      },
    };
  };

  /**
   * Substitutes an artifact's variables once per distinct text and values: a cluster reuses an
   * earlier result when every variable that substitution looked up has the same value (and
   * origin) for it. Evaluation reads nothing else, so the result is the same text, byte for byte.
   */
  substitute = (text: string, lookup: VariableLookup, file: string): SubstitutionResult => {
    this.stats.substitution.requested++;
    const key = sha256Hex(text);
    const earlier = this.substituted.get(key) ?? [];
    const same = earlier.find((e) => [...e.asked].every(([name, value]) => sameValue(lookup(name), value)));
    if (same) return same.result;
    const asked = new Map<string, VariableValue | undefined>();
    const recording: VariableLookup = (name) => {
      const value = lookup(name);
      asked.set(name, value);
      return value;
    };
    const result = substituteVariables(text, recording, file);
    this.stats.substitution.substituted++;
    earlier.push({ asked, result });
    this.substituted.set(key, earlier);
    return result;
  };

  /**
   * Parses each distinct text once per run. The texts asked for in one turn of the event loop
   * (every component of a cluster reaches its parse step in one turn) are parsed as one batch,
   * with one pass over the parse cache. A secret-bearing text is never shared or cached.
   */
  parse: TextParser = (input) => {
    this.stats.parsing.requested++;
    if (input.keepOutOfCache) return this.enqueue(input);
    return once(this.parsed, sha256Hex(input.text), () => this.enqueue(input));
  };

  /** Renders a component once per distinct input: the same parsed objects and the same settings (`key`). */
  component = (key: string, objects: KObject[], render: () => RenderedComponent): RenderedComponent => {
    this.stats.rendering.requested++;
    let id = this.objectIds.get(objects);
    if (id === undefined) {
      id = this.nextObjectId++;
      this.objectIds.set(objects, id);
    }
    return once(this.rendered, `${id}\0${key}`, () => {
      this.stats.rendering.rendered++;
      return render();
    });
  };

  private enqueue(input: CacheableParseInput): Promise<KObject[]> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ input, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.stats.parsing.parsed += batch.length;
    parseWithCache(
      batch.map((b) => b.input),
      this.cache,
    ).then(
      (results) => batch.forEach((b, i) => (Array.isArray(results[i]) ? b.resolve(results[i]) : b.reject(results[i]))),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    );
  }
}

function sameValue(a: VariableValue | undefined, b: VariableValue | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.value === b.value && a.origin === b.origin && a.fromSecret === b.fromSecret);
}

/**
 * Parsed forms are cached by the sha256 of the text that was parsed (the artifact after variable
 * substitution) and the parser's version, so a warm render skips YAML parsing altogether. Each
 * text gets its objects or its own problems; a bound of the whole batch, a BatchParseError.
 * The node budget is per batch of distinct texts: a text shared by many clusters counts once.
 */
export async function parseWithCache(
  sources: CacheableParseInput[],
  cache: ArtifactCache | undefined,
): Promise<(KObject[] | CapiGitopsError | BatchParseError)[]> {
  const budget = new YamlBudget();
  try {
    for (const s of sources) budget.check(s.text, s.source);
  } catch (err) {
    if (!(err instanceof CapiGitopsError)) throw err;
    const failure = new BatchParseError(err);
    return sources.map(() => failure);
  }
  const parseOne = (s: CacheableParseInput): KObject[] | CapiGitopsError => {
    try {
      return parseArtifacts([s])[0]!;
    } catch (err) {
      if (err instanceof CapiGitopsError) return err;
      throw err;
    }
  };
  if (!cache) return sources.map(parseOne);
  // a secret-bearing text is neither looked up (its digest would let a guess be checked) nor stored
  const keys = sources.map((s) => (s.keepOutOfCache ? undefined : `${PARSER_VERSION}:${sha256Hex(s.text)}`));
  const results: (KObject[] | CapiGitopsError | undefined)[] = await Promise.all(
    keys.map((key) => (key === undefined ? undefined : cache.getParsed<KObject[]>(key))),
  );
  const missing = sources.map((_, i) => i).filter((i) => results[i] === undefined);
  for (const i of missing) results[i] = parseOne(sources[i]!);
  await Promise.all(
    missing.map((i) => {
      const parsed = results[i];
      return keys[i] === undefined || !Array.isArray(parsed) ? undefined : cache.putParsed(keys[i], parsed);
    }),
  );
  await cache.trimParsed();
  return results as (KObject[] | CapiGitopsError)[];
}
