/**
 * A chart's values as Helm reads them: a `--values` file, a chart's values.yaml (and its
 * Chart.yaml) go through sigs.k8s.io/yaml's Unmarshal over go-yaml v2 (helm pkg/chart/common/values.go
 * ReadValues, pkg/chart/v2/loader/load.go LoadValues), which is how the manifest is read too
 * (manifest/yaml-source.ts): YAML 1.1's plain scalars typed as go-yaml v2 resolve.go types them
 * (`yes`/`on`/`y` true, `0644` 420, `0o17` 15, `1e400` and dates text), merge keys (`<<`) applied
 * where they stand (decode.go mapping, merge), and a key given twice in a map taking the last
 * (decode.go setMapIndex, not strict): a warning at the repeat, where the manifest refuses it.
 */
import YAML, { LineCounter, type YAMLError } from 'yaml';
import { CapiGitopsError, type Diagnostic } from '../../core/diagnostics.js';
import { YamlBudget } from '../../yaml/bounds.js';
import { repeatedKeyWarnings } from '../../manifest/repeated-keys.js';
import {
  documentValue,
  locate,
  PARSE_OPTIONS,
  positionAt,
  YamlValueError,
  type FieldPath,
  type SourceDocument,
} from '../../manifest/yaml-source.js';

export interface ValuesYaml {
  /** The document's value: null for an empty file. */
  value: unknown;
  /** The parsed document, for positions; absent for an empty file. */
  source?: SourceDocument;
  /** A key given twice in one map, each at the repeat. */
  warnings: Diagnostic[];
}

/** Reads one values document; every problem is thrown as one CapiGitopsError, at its line and column. */
export function readValuesYaml(file: string, text: string, expected: string): ValuesYaml {
  // Nodes and depth bounded before the parser sees the text, as for manifests: 100,000 `[` would
  // overflow its stack and be reported as "Maximum call stack size exceeded".
  new YamlBudget().check(text, file);
  const lineCounter = new LineCounter();
  const docs = YAML.parseAllDocuments(text, { ...PARSE_OPTIONS, lineCounter });
  const documents = Array.isArray(docs) ? docs : [];
  const firstError = documents.flatMap((doc) => doc.errors)[0];
  if (firstError) {
    const { line, col } = lineCounter.linePos(firstError.pos[0]);
    throw new CapiGitopsError({ ...yamlSyntaxProblem(firstError, file, expected), line, column: col });
  }
  if (documents.length > 1) {
    const { line, col } = lineCounter.linePos(documents[1]!.range[0]);
    throw new CapiGitopsError({
      file,
      line,
      column: col,
      message: `holds ${documents.length} YAML documents`,
      expected: 'one YAML document',
      // Helm 3 (sigs.k8s.io/yaml Unmarshal) reads the first document only; Helm 4 (loader.LoadValues) merges them
      hint: 'merge the documents into one map and delete the --- line: Helm versions differ on a file of several (the first only, or all merged)',
    });
  }
  if (documents.length === 0) return { value: null, warnings: [] };
  const source: SourceDocument = { file, text, lineCounter, doc: documents[0]! };
  let value: unknown;
  try {
    value = documentValue(source);
  } catch (error) {
    if (error instanceof YamlValueError)
      throw new CapiGitopsError({ ...positionAt(source, error.offset), message: error.message, expected, hint: error.hint });
    if (error instanceof RangeError)
      throw new CapiGitopsError({
        ...positionAt(source, 0),
        message: 'the document is nested too deeply',
        expected,
        hint: 'flatten the document',
      });
    throw error;
  }
  return { value, source, warnings: repeatedKeyWarnings(source) };
}

/** The text a scalar value was written as (`yes` for true), for a hint that quotes it. */
export function writtenText(source: SourceDocument | undefined, path: FieldPath): string | undefined {
  if (!source) return undefined;
  const found = locate(source, source.doc.contents as YAML.Node | null, path);
  const node = found.node;
  return found.complete && YAML.isScalar(node) && node.range ? source.text.slice(node.range[0], node.range[1]) : undefined;
}

/** The `yaml` library's first error in a chart's or values file, at its line and column. */
function yamlSyntaxProblem(e: YAMLError, file: string, expected: string): Diagnostic {
  return {
    file,
    line: e.linePos?.[0]?.line,
    column: e.linePos?.[0]?.col,
    // the parser's own "at line 12, column 1:" repeats the position the diagnostic has
    message: `not valid YAML: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
    expected,
    hint:
      e.code === 'DUPLICATE_KEY'
        ? 'keep one of the two: a key is written once in its map'
        : 'correct this line or the one before it: an unclosed [ { or quote, or an indentation out of step, is the usual cause',
  };
}
