/**
 * One run's shared state: a single cluster and every cluster of a fleet go through the same
 * context, so a fleet is a loop, not a second pipeline. Each memo is keyed by a digest, never by
 * a large string: V8 hashes a string over 16,383 characters by its length, so a Map keyed by
 * same-length artifact texts compares megabytes on every lookup (issue 24). And each memo that
 * holds what one cluster made (parsed documents, substituted texts, rendered components) is
 * bounded, least recently used first out, so a fleet's memory does not grow with its clusters.
 */
import type { KObject } from '../core/kobject.js';
import { CapiGitopsError, type Diagnostic } from '../core/diagnostics.js';
import { sha256Hex } from '../core/digest.js';
import type { Artifact, ProviderRepository } from '../core/repository.js';
import { checkCharacters, DEFAULT_MAX_ARTIFACT_BYTES, parseArtifact, PARSER_VERSION } from '../yaml/parse.js';
import { lineColumnAt, splitDocuments } from '../yaml/split.js';
import { YamlBudget } from '../yaml/bounds.js';
import type { ArtifactCache } from '../sources/cache.js';
import type { ImageDigestAnswer, ImageDigestRequest } from '../sources/oci/image-digests.js';
import type { RunMemo } from '../sources/request.js';
import { sharedBlobs, type SharedBlobs } from '../resolve/lock/session.js';
import { substituteVariables, type SubstitutionResult } from '../render/variables.js';
import type { RenderedComponent, VariableLookup, VariableValue } from '../render/types.js';
import { BatchParseError, type CacheableParseInput, type TextParser } from '../render/component.js';
import { EmittedObjects } from '../layout/emit-memo.js';

/** A memo entry: the first caller's promise, shared by every later caller of the same key. */
function once<T>(memo: Map<string, T>, key: string, load: () => T): T {
  let value = memo.get(key);
  if (value === undefined) {
    value = load();
    memo.set(key, value);
  }
  return value;
}

/** A memo bounded by the total weight of its entries; the least recently used go first (a Map iterates in use order here). */
export class BoundedMemo<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private total = 0;
  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, weight = 1): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.total -= old.weight;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, weight });
    this.total += weight;
    if (this.total <= this.capacity) return;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.capacity || oldest === key) break;
      this.entries.delete(oldest);
      this.total -= entry.weight;
    }
  }

  /** Whether `key` is held (without counting as a use). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** What a run may keep of what its clusters made: a few clusters' worth of the corpus (4.5 MB of text each). */
export const MEMO_LIMITS = {
  /** Characters of parsed documents kept (their objects are several times that in memory). */
  documentCharacters: 8 * 1024 * 1024,
  /** Whole artifact texts whose objects are kept (each an array over the documents above). */
  texts: 64,
  /** Substitutions kept per artifact text (each result a whole substituted text). */
  substitutionsPerText: 4,
  /** Rendered components kept. */
  components: 32,
};

export interface RunContextOptions {
  /** The memos' digest (sha256 hex); a test counts the work behind each lookup through it. */
  digest?: (text: string) => string;
  /**
   * The run renders one cluster: no other cluster shares its texts, so a text is split into
   * documents and hashed only when the parse cache may hold it (a CI runner's empty cache cannot).
   */
  oneCluster?: boolean;
}

/** A text whose split waits for the batch to know whether the parse cache may hold it. */
const SPLIT_IF_CACHED = 'split-if-cached';

interface Pending {
  input: CacheableParseInput;
  /** Undefined for a text parsed whole. */
  split: SplitText | undefined | typeof SPLIT_IF_CACHED;
  resolve: (objects: KObject[]) => void;
  reject: (err: unknown) => void;
}

export class RunContext {
  /** Cached files read, and downloads stored, once per run (resolve/lock/session.ts). */
  readonly blobs: SharedBlobs = sharedBlobs();
  /** Files of components already laid out in this run, reused by every cluster that shares the component. */
  readonly componentFiles = new WeakMap<RenderedComponent, Map<string, string>>();
  /** Texts of objects emitted in this run, reused for an equal object (layout/emit-memo.ts). */
  readonly emitted = new EmittedObjects();
  readonly stats = {
    /** Artifact fetches the clusters asked for, and how many reached a source. */
    fetching: { requested: 0, fetched: 0 },
    /** Artifact texts the clusters asked to parse, and how many were parsed (distinct texts). */
    parsing: { requested: 0, parsed: 0 },
    /** Documents of the texts parsed, and how many were parsed (the others were parsed before, for another text). */
    documents: { requested: 0, parsed: 0 },
    /** Variable substitutions the clusters asked for, and how many ran (distinct text and values). */
    substitution: { requested: 0, substituted: 0 },
    /** Components the clusters rendered, and how many distinct ones were rendered. */
    rendering: { requested: 0, rendered: 0 },
  };

  private readonly digest: (text: string) => string;
  private readonly oneCluster: boolean;
  private readonly files = new Map<string, Promise<Artifact>>();
  private readonly versions = new Map<string, Promise<string[]>>();
  private readonly sourceRequests = new Map<string, Promise<unknown>>();
  private readonly texts = new BoundedMemo<Promise<KObject[]>>(MEMO_LIMITS.texts);
  private readonly documents = new BoundedMemo<KObject[]>(MEMO_LIMITS.documentCharacters);
  private readonly substituted = new Map<string, { asked: Map<string, VariableValue | undefined>; result: SubstitutionResult }[]>();
  private readonly objectIds = new WeakMap<KObject[], number>();
  private nextObjectId = 0;
  private readonly rendered = new BoundedMemo<RenderedComponent>(MEMO_LIMITS.components);
  /** The documents of the last text of each artifact (by its source name), with their digests. */
  private readonly lastDocuments = new Map<string, TextDocument[]>();
  private pending: Pending[] = [];
  private readonly imageDigests = new Map<string, { answer: Promise<ImageDigestAnswer>; warnings: Diagnostic[] }>();

  constructor(
    private readonly cache: ArtifactCache | undefined,
    options: RunContextOptions = {},
  ) {
    this.digest = options.digest ?? sha256Hex;
    this.oneCluster = options.oneCluster ?? false;
  }

  /**
   * Asks the registries for one set of images once per run: a fleet's clusters mostly run the same
   * images. Every asker is told the warnings of the asking, so a fleet tells them for every cluster
   * that runs those images, not for the first alone.
   */
  askRegistriesOnce = async (
    requests: readonly ImageDigestRequest[],
    ask: (onWarning: (warning: Diagnostic) => void) => Promise<ImageDigestAnswer>,
    onWarning?: (warning: Diagnostic) => void,
  ): Promise<ImageDigestAnswer> => {
    const asked = once(this.imageDigests, this.digest(requests.map((r) => r.image).join('\n')), () => {
      const warnings: Diagnostic[] = [];
      return { answer: ask((warning) => warnings.push(warning)), warnings };
    });
    try {
      return await asked.answer;
    } finally {
      asked.warnings.forEach((warning) => onWarning?.(warning));
    }
  };

  /** A request several providers share (a GitHub release's JSON), made once per run, whichever asks first; a failure too. */
  runMemo: RunMemo = <T>(key: string, load: () => Promise<T>): Promise<T> => once(this.sourceRequests, key, load) as Promise<T>;

  /** Reads a local file (cert-manager.yaml by path) once per run, whichever cluster asks first. */
  readLocal = (filePath: string, read: () => Promise<Artifact>): Promise<Artifact> => once(this.files, `local\0${filePath}`, read);

  /** Wraps a repository so each (source, version, file) is fetched once per run, whichever cluster asks first. */
  repository = (repository: ProviderRepository): ProviderRepository => {
    // providers of one release store (CAPI core, kubeadm bootstrap and control plane) share each fetch, and its failure
    const where = `${repository.sourceType}\0${repository.releaseStore ?? repository.location}`;
    return {
      sourceType: repository.sourceType,
      readsInPlace: repository.readsInPlace,
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
   * The few most recent results per text are kept: a cluster with values of its own adds one.
   */
  substitute = (text: string, lookup: VariableLookup, file: string, textSha256?: string): SubstitutionResult => {
    this.stats.substitution.requested++;
    const key = textSha256 ?? this.digest(text);
    const earlier = this.substituted.get(key) ?? [];
    const at = earlier.findIndex((e) => [...e.asked].every(([name, value]) => sameValue(lookup(name), value)));
    if (at >= 0) {
      const [same] = earlier.splice(at, 1);
      earlier.unshift(same!);
      return same!.result;
    }
    const asked = new Map<string, VariableValue | undefined>();
    const recording: VariableLookup = (name) => {
      const value = lookup(name);
      asked.set(name, value);
      return value;
    };
    const result = substituteVariables(text, recording, file);
    this.stats.substitution.substituted++;
    earlier.unshift({ asked, result });
    if (earlier.length > MEMO_LIMITS.substitutionsPerText) earlier.length = MEMO_LIMITS.substitutionsPerText;
    this.substituted.set(key, earlier);
    return result;
  };

  /**
   * Parses each distinct text once, and each distinct document of those texts once: clusters
   * that give an artifact values of their own differ in a document or two (a Deployment's
   * arguments), and share the parsed form of every other. The texts asked for in one turn of the
   * event loop (every component of a cluster reaches its parse step in one turn) are parsed as
   * one batch, with one pass over the parse cache and one YAML node budget for the documents it
   * parses. A secret-bearing text is never shared, split or cached.
   */
  parse: TextParser = (input) => {
    this.stats.parsing.requested++;
    if (input.keepOutOfCache) return this.enqueue(input, undefined);
    if (this.oneCluster) return this.enqueue(input, SPLIT_IF_CACHED);
    const split = this.split(input);
    const key = split?.key ?? this.digest(input.text);
    let parsed = this.texts.get(key);
    if (parsed === undefined) {
      parsed = this.enqueue(input, split);
      this.texts.set(key, parsed);
    }
    return parsed;
  };

  /** Renders a component once per distinct input: the same parsed objects and the same settings (`key`). */
  component = (key: string, objects: KObject[], render: () => RenderedComponent): RenderedComponent => {
    this.stats.rendering.requested++;
    let id = this.objectIds.get(objects);
    if (id === undefined) {
      id = this.nextObjectId++;
      this.objectIds.set(objects, id);
    }
    const memoKey = `${id}\0${key}`;
    let rendered = this.rendered.get(memoKey);
    if (rendered === undefined) {
      this.stats.rendering.rendered++;
      rendered = render();
      this.rendered.set(memoKey, rendered);
    }
    return rendered;
  };

  private enqueue(input: CacheableParseInput, split: Pending['split']): Promise<KObject[]> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ input, split, resolve, reject });
    });
  }

  /** A text as its documents (splitText), a document equal to its place in the same artifact's last text taking its digest. */
  private split(input: CacheableParseInput): SplitText | undefined {
    const split = splitText(input, this.digest, this.lastDocuments.get(input.source));
    if (split) this.lastDocuments.set(input.source, split.documents);
    return split;
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.stats.parsing.parsed += batch.length;
    this.parseBatch(batch).then(
      (results) => batch.forEach((b, i) => (Array.isArray(results[i]) ? b.resolve(results[i]) : b.reject(results[i]))),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    );
  }

  /**
   * Each text's objects, or its own problems; a bound of the whole batch, a BatchParseError.
   * Parsed forms are cached on disk by a digest of the text parsed (the artifact after
   * substitution; parsedCacheKey) and the parser's version, one array of objects per document,
   * so a warm render skips YAML parsing altogether; a text some of whose documents were parsed
   * before (a fleet's cluster with a value of its own) is neither looked up nor stored.
   */
  private async parseBatch(pending: readonly Pending[]): Promise<(KObject[] | CapiGitopsError | BatchParseError)[]> {
    const cache = this.cache;
    const mayHold = pending.some((b) => b.split === SPLIT_IF_CACHED) && cache !== undefined && (await cache.mayHoldParsed());
    const batch = pending.map(({ input, split }) => ({
      input,
      split: split !== SPLIT_IF_CACHED ? split : mayHold ? this.split(input) : undefined,
    }));
    // a secret-bearing text is neither looked up (its digest would let a guess be checked) nor
    // stored; nor is a text some of whose documents are parsed already (a fleet's cluster with a
    // value of its own parses the rest faster than the cache would be read)
    const keys = batch.map((b) =>
      b.split && cache && !b.split.documents.some((d) => this.documents.has(d.key)) ? `${PARSER_VERSION}:${b.split.key}` : undefined,
    );
    const cached = await Promise.all(keys.map((key) => (key === undefined ? undefined : cache!.getParsed<KObject[][]>(key))));
    const plans = batch.map((b, i) => this.plan(b.input, b.split, cached[i]));
    const budget = new YamlBudget();
    try {
      // each document to parse counts once, however many texts of the batch hold it
      const counted = new Set<string>();
      for (const plan of plans)
        for (const doc of plan.fresh)
          if (plan.whole || !counted.has(doc.key)) {
            counted.add(doc.key);
            checkDocument(budget, doc, plan.input);
          }
    } catch (err) {
      if (!(err instanceof CapiGitopsError)) throw err;
      const failure = new BatchParseError(err);
      return batch.map(() => failure);
    }
    const results = plans.map((plan) => this.complete(plan));
    await Promise.all(
      plans.map((plan, i) => {
        const documents = plan.documents.map((d) => this.documents.get(d.key));
        if (keys[i] === undefined || !plan.new || !Array.isArray(results[i]) || documents.includes(undefined)) return undefined;
        return cache!.putParsed(keys[i], documents);
      }),
    );
    // the store is kept by the batches that use it
    if (cache && keys.some((k) => k !== undefined)) await cache.trimParsed();
    return results;
  }

  /** What a text needs parsed: the whole of it (secret-bearing or unusual), or those of its documents not known yet. */
  private plan(input: CacheableParseInput, split: SplitText | undefined, cached: KObject[][] | undefined): ParsePlan {
    if (split === undefined) return { input, documents: [], fresh: [{ key: '', text: input.text, start: 0 }], whole: true, new: false };
    const { documents } = split;
    if (cached !== undefined && cached.length === documents.length)
      documents.forEach((d, i) => this.documents.set(d.key, cached[i]!, d.text.length));
    this.stats.documents.requested += documents.length;
    const fresh: TextDocument[] = [];
    let known = 0;
    for (const d of documents) {
      if (this.documents.get(d.key) !== undefined) known++;
      else if (!fresh.some((f) => f.key === d.key)) fresh.push(d);
    }
    return { input, documents, fresh, whole: false, new: known === 0 };
  }

  private complete(plan: ParsePlan): KObject[] | CapiGitopsError {
    const { input } = plan;
    const wholeParse = (): KObject[] | CapiGitopsError => {
      try {
        return parseArtifact(input.text, { source: input.source });
      } catch (err) {
        if (err instanceof CapiGitopsError) return err;
        throw err;
      }
    };
    if (plan.whole) return wholeParse();
    for (const doc of plan.fresh) {
      if (this.documents.get(doc.key) !== undefined) continue;
      try {
        // parsed from a copy (V8 flattens the concatenation into a new string): a value the parser
        // sliced from the document itself would keep the whole artifact text alive
        const text = ` ${doc.text}`.slice(1);
        this.documents.set(doc.key, parseArtifact(text, { source: input.source }), doc.text.length);
        this.stats.documents.parsed++;
      } catch (err) {
        if (!(err instanceof CapiGitopsError)) throw err;
        // the whole text's parse reports the problem at its line in the artifact
        return wholeParse();
      }
    }
    const objects: KObject[] = [];
    for (const doc of plan.documents) {
      const parsed = this.documents.get(doc.key);
      // evicted while this batch parsed others (a batch larger than the memo): parsed again
      objects.push(...(parsed ?? parseArtifact(doc.text, { source: input.source })));
    }
    return objects;
  }
}

/**
 * A text as its documents, each with the digest of its text, and the text's own key (a digest of
 * the separators and the documents' digests, so the text is hashed once); undefined for a text
 * the whole-text parser should read (over the size bound, a separator problem, a character the
 * parser refuses between documents), which then reports it. A document equal to the one at its
 * place in `before` (the same artifact's documents for the cluster before: one comparison, which
 * stops at the first difference) takes its digest.
 */
function splitText(input: CacheableParseInput, digest: (text: string) => string, before?: readonly TextDocument[]): SplitText | undefined {
  if (input.text.length * 3 > DEFAULT_MAX_ARTIFACT_BYTES) return undefined;
  const { chunks, problems } = splitDocuments(input.text, input.source);
  if (problems.length > 0) return undefined;
  const documents: TextDocument[] = [];
  const parts: string[] = [];
  let end = 0;
  for (const chunk of chunks) {
    const between = input.text.slice(end, chunk.start);
    // the separator lines between documents are read by no document's parse
    if (!charactersAllowed(between, input.source)) return undefined;
    end = chunk.end;
    const text = input.text.slice(chunk.start, chunk.end);
    const earlier = before?.[documents.length];
    const key = earlier !== undefined && earlier.text === text ? earlier.key : digest(text);
    documents.push({ key, text, start: chunk.start });
    parts.push(between, key);
  }
  const after = input.text.slice(end);
  if (!charactersAllowed(after, input.source)) return undefined;
  parts.push(after);
  return { key: digest(`documents\0${parts.join('\0')}`), documents };
}

/** The budget's check of a document, a problem at its line in the whole text. */
function checkDocument(budget: YamlBudget, doc: TextDocument, input: CacheableParseInput): void {
  try {
    budget.check(doc.text, input.source);
  } catch (err) {
    if (!(err instanceof CapiGitopsError) || doc.start === 0) throw err;
    const before = lineColumnAt(input.text, doc.start).line - 1;
    throw new CapiGitopsError(err.diagnostics.map((d) => (d.line === undefined ? d : { ...d, line: d.line + before })));
  }
}

/**
 * Where the parse cache keeps a text's parsed documents (one array of objects per document, in
 * order); undefined for a text that is parsed whole and never cached.
 */
export function parsedCacheKey(text: string, source: string): { key: string; documents: number } | undefined {
  const split = splitText({ text, source }, sha256Hex);
  return split && { key: `${PARSER_VERSION}:${split.key}`, documents: split.documents.length };
}

interface TextDocument {
  /** The digest of the document's text. */
  key: string;
  text: string;
  /** Where it starts in the text it was split from. */
  start: number;
}

interface SplitText {
  key: string;
  documents: TextDocument[];
}

interface ParsePlan {
  input: CacheableParseInput;
  /** The text's documents in order. */
  documents: TextDocument[];
  /** Documents to parse in this batch (the whole text when `whole`). */
  fresh: TextDocument[];
  whole: boolean;
  /** True when no document of the text was parsed before: the text is worth storing in the parse cache. */
  new: boolean;
}

function charactersAllowed(text: string, source: string): boolean {
  try {
    checkCharacters(text, source);
    return true;
  } catch (err) {
    if (err instanceof CapiGitopsError) return false;
    throw err;
  }
}

function sameValue(a: VariableValue | undefined, b: VariableValue | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.value === b.value && a.origin === b.origin && a.fromSecret === b.fromSecret);
}
