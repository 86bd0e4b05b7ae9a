import { isPlainObject } from '../core/kobject.js';
import { setOwnValue } from '../core/own-keys.js';
import type { Finding } from './documents.js';
import type { ConfigMapObject, NamespaceObject, SecretObject, SourcePosition } from './types.js';

/**
 * Standard base64 with padding, as Go's encoding/json decodes []byte (base64.StdEncoding, which
 * skips CR and LF). Node's decoder accepts almost anything, so validity is checked first.
 */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function decodeBase64(text: string): Buffer | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  return BASE64.test(compact) ? Buffer.from(compact, 'base64') : undefined;
}

/** A map's entries whose values are strings (metadata labels and annotations, a Secret's data). */
export function stringEntries(value: unknown): [string, string][] {
  if (!isPlainObject(value)) return [];
  return Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}

function metadataOf(value: Record<string, unknown>): {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  const metadata = isPlainObject(value.metadata) ? value.metadata : {};
  return {
    name: typeof metadata.name === 'string' ? metadata.name : '',
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
    labels: Object.fromEntries(stringEntries(metadata.labels)),
    annotations: Object.fromEntries(stringEntries(metadata.annotations)),
  };
}

/** Never quotes the value: it is secret. The key is a name, not a value. */
function invalidBase64(field: string, key: string): Finding {
  return {
    path: [field, key],
    at: 'value',
    message: 'is not valid base64',
    expected: 'standard base64 with padding (RFC 4648), e.g. what `base64 -w0` prints',
    hint:
      field === 'data'
        ? 'encode the value, or put it as plain text under stringData'
        : 'encode the value with base64, or put text under data',
  };
}

/**
 * A Secret's values as text: `data` decoded from base64, then `stringData` merged over it,
 * as the API server merges them on write.
 */
export function toSecretObject(value: Record<string, unknown>, position: SourcePosition): { secret: SecretObject; findings: Finding[] } {
  const findings: Finding[] = [];
  const data: Record<string, string> = {};
  for (const [key, encoded] of stringEntries(value.data)) {
    const bytes = decodeBase64(encoded);
    if (bytes) setOwnValue(data, key, bytes.toString('utf8'));
    else findings.push(invalidBase64('data', key));
  }
  for (const [key, text] of stringEntries(value.stringData)) setOwnValue(data, key, text);
  const { name, namespace } = metadataOf(value);
  return { secret: { name, namespace, data, position }, findings };
}

/** A ConfigMap as given; binaryData stays base64 but must be valid, and keys must not repeat across data and binaryData. */
export function toConfigMapObject(
  value: Record<string, unknown>,
  position: SourcePosition,
): { configMap: ConfigMapObject; findings: Finding[] } {
  const findings: Finding[] = [];
  const data = Object.fromEntries(stringEntries(value.data));
  const binaryData: Record<string, string> = {};
  for (const [key, encoded] of stringEntries(value.binaryData)) {
    if (!decodeBase64(encoded)) findings.push(invalidBase64('binaryData', key));
    if (Object.hasOwn(data, key)) {
      findings.push({
        path: ['binaryData', key],
        at: 'key',
        message: `key "${key}" is in both data and binaryData`,
        expected: 'each key in data or binaryData, not both',
        hint: 'remove one of them',
      });
    }
    setOwnValue(binaryData, key, encoded);
  }
  const { name, namespace, labels, annotations } = metadataOf(value);
  return { configMap: { name, namespace, labels, annotations, data, binaryData, position }, findings };
}

/**
 * A Namespace as given: name, labels, annotations and spec. metadata.namespace means nothing on a
 * cluster-scoped object (the API server clears it), so it is dropped.
 */
export function toNamespaceObject(value: Record<string, unknown>, position: SourcePosition): NamespaceObject {
  const { name, labels, annotations } = metadataOf(value);
  return { name, labels, annotations, ...(isPlainObject(value.spec) ? { spec: value.spec } : {}), position };
}
