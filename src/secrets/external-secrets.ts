/**
 * The external-secrets strategy: a Secret that would carry secret values becomes an
 * `external-secrets.io/v1` ExternalSecret of the same name and namespace. Its `target.template`
 * keeps the Secret's type, labels, annotations and non-secret keys; each secret variable is read
 * from the configured store (remote key from a template, property = the variable name).
 * Field names follow the ExternalSecret CRD (config/crds/bases/external-secrets.io_externalsecrets.yaml).
 */
import { compareStrings, type Diagnostic } from '../core/diagnostics.js';
import { describeObject, isPlainObject, type KObject } from '../core/kobject.js';
import type { SecretsConfig } from '../manifest/types.js';
import { ONLY_IF_NOT_A_CREDENTIAL } from '../render/types.js';
import { formatPath, type Mark, type TaintedField } from './taint.js';
import { setOwnValue } from '../core/own-keys.js';

const DEFAULT_REMOTE_KEY = '{{namespace}}/{{name}}';

/** A reference whose result is the variable's whole value: `${V}`, `${V:=d}`, `${V:-d}` (V set). */
function wholeValueOf(mark: Mark): string | undefined {
  const match = /^\$\{([^:=}/#%^,-]+)(\}|:?[-=])/.exec(mark.reference);
  return match && mark.variables.length === 1 && mark.variables[0] === match[1] ? match[1] : undefined;
}

/** Literal text inside a Go template (ESO's template engine v2). */
function templateLiteral(text: string): string {
  return text.replaceAll('{{', '{{ "{{" }}');
}

export function isSecret(obj: KObject): boolean {
  return obj.apiVersion === 'v1' && obj.kind === 'Secret';
}

/** Why a tainted field is not somewhere a strategy can take it from; no value is shown. */
export function notInSecretData(field: TaintedField, strategy: string, what: string): Diagnostic {
  // no strategy but inline places a map key or a value a transform computed: moving it or Flux does not help
  const asWritten = field.key === true || field.derived === true;
  const names = field.variables.join(', ');
  return {
    ...field.given,
    object: describeObject(field.object),
    path: formatPath(field.path),
    message: `receives the secret ${names}, and the ${strategy} strategy ${what}`,
    expected: asWritten
      ? 'secret values written as given, not in a map key nor read by a transform'
      : 'secret values only in the data or stringData of a v1 Secret',
    hint: asWritten
      ? `declare ${names} in Config.secrets.public ${ONLY_IF_NOT_A_CREDENTIAL}, or write it in clear text: --secrets inline --allow-secret-values`
      : `move the value into a Secret (e.g. with spec.manifestPatches), declare the variable in Config.secrets.public ${ONLY_IF_NOT_A_CREDENTIAL}, ` +
        'or choose --layout flux --secrets flux-substitute',
  };
}

interface ExternalSecretResult {
  objects: KObject[];
  problems: Diagnostic[];
}

type ExternalSecretsSettings = NonNullable<SecretsConfig['externalSecrets']>;

/** Replaces each tainted Secret of one component; `fields` are that component's tainted fields. */
export function toExternalSecrets(
  objects: readonly KObject[],
  fields: readonly TaintedField[],
  config: SecretsConfig,
): ExternalSecretResult {
  const problems: Diagnostic[] = [];
  const settings = config.externalSecrets ?? {};
  const store = settings.secretStoreRef;
  const byObject = new Map<number, TaintedField[]>();
  for (const field of fields) byObject.set(field.index, [...(byObject.get(field.index) ?? []), field]);
  const out = objects.map((obj, index) => {
    const tainted = byObject.get(index);
    if (!tainted) return obj;
    if (!store) return obj; // the stage entry reports a missing store once
    const { template, variables, problems: local } = secretTemplate(obj, tainted);
    if (local.length > 0) {
      problems.push(...local);
      return obj;
    }
    return externalSecret(obj, template, variables, settings, store);
  });
  return { objects: out, problems };
}

/**
 * The ExternalSecret's template data for a Secret: each tainted key with its variables as Go
 * template references, the Secret's other keys as literal text; and the variables to fetch.
 */
function secretTemplate(
  obj: KObject,
  tainted: readonly TaintedField[],
): { template: Record<string, string>; variables: Set<string>; problems: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  const template: Record<string, string> = {};
  const variables = new Set<string>();
  const taintedKeys = new Set<string>();
  for (const field of tainted) {
    const [section, key, ...rest] = field.path;
    if (!isSecret(obj) || field.key || (section !== 'data' && section !== 'stringData') || typeof key !== 'string' || rest.length > 0) {
      problems.push(notInSecretData(field, 'external-secrets', 'can only take secret values from Secret data'));
      continue;
    }
    if (field.derived) {
      problems.push(notInSecretData(field, 'external-secrets', 'cannot fetch a value a transform computed from it'));
      continue;
    }
    const base64 = section === 'data';
    const parts: string[] = [];
    for (const piece of field.pieces) {
      if (typeof piece === 'string') {
        parts.push(templateLiteral(piece));
        continue;
      }
      const name = wholeValueOf(piece);
      if (!name) {
        problems.push({
          ...notInSecretData(field, 'external-secrets', `cannot apply ${piece.reference} to a value in the store`),
          expected: 'whole values (${NAME}) in Secret data',
          hint: 'store the value in the form the component needs, and reference it as ${NAME}',
        });
        continue;
      }
      variables.add(name);
      parts.push(base64 ? `{{ .${name} | b64dec }}` : `{{ .${name} }}`);
    }
    if (base64 && field.pieces.length !== 1) {
      problems.push({
        ...notInSecretData(field, 'external-secrets', 'cannot split a base64 data value'),
        expected: 'a data value that is exactly one ${NAME}',
        hint: 'put the text in stringData, or the whole base64 value in the store',
      });
    }
    setOwnValue(template, key, parts.join(''));
    taintedKeys.add(key);
  }
  // the Secret's other keys, as the plain text the template writes (stringData wins, as in Kubernetes)
  const data = isPlainObject(obj.data) ? obj.data : {};
  const stringData = isPlainObject(obj.stringData) ? obj.stringData : {};
  for (const [key, value] of Object.entries(data)) {
    if (!taintedKeys.has(key) && typeof value === 'string')
      setOwnValue(template, key, templateLiteral(Buffer.from(value, 'base64').toString('utf8')));
  }
  for (const [key, value] of Object.entries(stringData))
    if (!taintedKeys.has(key)) setOwnValue(template, key, templateLiteral(String(value)));
  return { template, variables, problems };
}

/** The ExternalSecret that replaces `obj`: same name, namespace, type, labels and annotations. */
function externalSecret(
  obj: KObject,
  template: Record<string, string>,
  variables: ReadonlySet<string>,
  settings: ExternalSecretsSettings,
  store: NonNullable<ExternalSecretsSettings['secretStoreRef']>,
): KObject {
  const name = obj.metadata.name ?? '';
  const namespace = obj.metadata.namespace ?? '';
  const remoteKey = (settings.remoteKey ?? DEFAULT_REMOTE_KEY).replaceAll('{{namespace}}', namespace).replaceAll('{{name}}', name);
  const labels = obj.metadata.labels;
  const annotations = obj.metadata.annotations;
  const templateMetadata = { ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) };
  return {
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
    spec: {
      refreshInterval: settings.refreshInterval ?? '1h',
      secretStoreRef: { kind: store.kind ?? 'ClusterSecretStore', name: store.name },
      target: {
        name,
        creationPolicy: 'Owner',
        template: {
          engineVersion: 'v2',
          type: typeof obj.type === 'string' ? obj.type : 'Opaque',
          ...(Object.keys(templateMetadata).length > 0 ? { metadata: templateMetadata } : {}),
          data: Object.fromEntries(Object.entries(template).sort(([a], [b]) => compareStrings(a, b))),
        },
      },
      data: [...variables]
        .sort(compareStrings)
        .map((variable) => ({ secretKey: variable, remoteRef: { key: remoteKey, property: variable } })),
    },
  };
}
