/**
 * Workload call-outs: images, controller flags, replicas and resources of the containers of
 * Deployments, DaemonSets and StatefulSets (apps/v1), containers matched by name.
 */
import { compareStrings } from '../core/diagnostics.js';
import { isPlainObject, type KObject } from '../core/kobject.js';
import { parseImage } from '../core/image-reference.js';
import type { FlagsFinding, ImageContentFinding, ImageFinding, ReplicasFinding, ResourcesFinding } from './types.js';

export const WORKLOAD_KINDS = new Set(['Deployment', 'DaemonSet', 'StatefulSet']);

type Base = { risk: 'info'; component: string; file: string; object: string };
type WorkloadFinding = ImageFinding | ImageContentFinding | FlagsFinding | ReplicasFinding | ResourcesFinding;

function containersOf(obj: KObject | undefined): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const spec =
    isPlainObject(obj?.spec) && isPlainObject(obj.spec.template) && isPlainObject(obj.spec.template.spec)
      ? obj.spec.template.spec
      : undefined;
  for (const field of ['initContainers', 'containers']) {
    const list = spec && Array.isArray(spec[field]) ? spec[field] : [];
    for (const c of list) if (isPlainObject(c) && typeof c.name === 'string') out.set(c.name, c);
  }
  return out;
}

/**
 * Both pinned, same image name and tag, different digests: `repository:tag` and the two digests;
 * from another registry or repository (an images override moved to another mirror), the new
 * `repository:tag` too: a mirror's copy of every architecture keeps the digest, so another digest
 * is other content, as when a tag moves.
 */
function sameTagNewContent(from: string, to: string): { image: string; from: string; to: string; toImage?: string } | undefined {
  const [a, b] = [parseImage(from), parseImage(to)];
  if (!a.ok || !b.ok) return undefined;
  const [ra, rb] = [a.reference, b.reference];
  const name = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  if (!ra.digest || !rb.digest || ra.digest === rb.digest || name(ra.path) !== name(rb.path) || !ra.tag || ra.tag !== rb.tag)
    return undefined;
  const [image, toImage] = [from.slice(0, from.lastIndexOf('@')), to.slice(0, to.lastIndexOf('@'))];
  return { image, from: ra.digest, to: rb.digest, ...(toImage !== image ? { toImage } : {}) };
}

/** `--name=value` → name → value ("" for a bare flag); positional arguments by position. */
function parseFlags(args: unknown): Map<string, string> {
  const flags = new Map<string, string>();
  (Array.isArray(args) ? args : []).forEach((arg, i) => {
    const text = String(arg);
    if (!text.startsWith('-')) return void flags.set(`arg[${i}]`, text);
    const eq = text.indexOf('=');
    flags.set(eq < 0 ? text : text.slice(0, eq), eq < 0 ? '' : text.slice(eq + 1));
  });
  return flags;
}

/** `a=1,b=2` lists (feature gates, label maps) as item changes; other values as old → new. */
function describeValueChange(from: string, to: string): string {
  const asMap = (v: string) =>
    /^[^=,]+=[^,]*(,[^=,]+=[^,]*)*$/.test(v)
      ? new Map(v.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))
      : undefined;
  const [a, b] = [asMap(from), asMap(to)];
  if (!a || !b) return `${from} → ${to}`;
  const parts = [
    ...[...b].filter(([k]) => !a.has(k)).map(([k, v]) => `+${k}=${v}`),
    ...[...a].filter(([k]) => !b.has(k)).map(([k, v]) => `−${k}=${v}`),
    ...[...b].filter(([k, v]) => a.has(k) && a.get(k) !== v).map(([k, v]) => `${k}=${a.get(k)} → ${v}`),
  ];
  return parts.join(' ');
}

function flatten(value: unknown, at: string, out: Map<string, string>): Map<string, string> {
  if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) flatten(v, at ? `${at}.${k}` : k, out);
  else if (value !== undefined) out.set(at, String(value));
  return out;
}

function replicasOf(obj: KObject | undefined): number | null {
  return isPlainObject(obj?.spec) && typeof obj.spec.replicas === 'number' ? obj.spec.replicas : null;
}

export function workloadFindings(before: KObject | undefined, after: KObject | undefined, base: Base): WorkloadFinding[] {
  const findings: WorkloadFinding[] = [];
  const a = containersOf(before);
  const b = containersOf(after);
  for (const name of [...new Set([...a.keys(), ...b.keys()])].sort(compareStrings)) {
    const old = a.get(name);
    const now = b.get(name);
    const image = (c: Record<string, unknown> | undefined) => (typeof c?.image === 'string' ? c.image : null);
    const moved = image(old) !== null && image(now) !== null ? sameTagNewContent(image(old)!, image(now)!) : undefined;
    if (moved) {
      findings.push({
        ...base,
        risk: 'warning',
        type: 'image-content',
        container: name,
        ...moved,
        message:
          moved.toImage === undefined
            ? `${base.object} container ${name}: image ${moved.image}: same tag, new content (${moved.from} → ${moved.to})`
            : `${base.object} container ${name}: image ${moved.image} → ${moved.toImage}: same image and tag from another registry or repository, new content (${moved.from} → ${moved.to})`,
      });
    } else if (image(old) !== image(now)) {
      findings.push({
        ...base,
        type: 'image',
        container: name,
        from: image(old),
        to: image(now),
        message: `${base.object} container ${name}: image ${image(old) ?? '(none)'} → ${image(now) ?? '(none)'}`,
      });
    }
    if (!old || !now) continue;
    const fa = parseFlags(old.args);
    const fb = parseFlags(now.args);
    const added = [...fb.keys()].filter((f) => !fa.has(f)).sort(compareStrings);
    const removed = [...fa.keys()].filter((f) => !fb.has(f)).sort(compareStrings);
    const changed = [...fb.keys()]
      .filter((f) => fa.has(f) && fa.get(f) !== fb.get(f))
      .sort(compareStrings)
      .map((flag) => ({ flag, from: fa.get(flag)!, to: fb.get(flag)! }));
    if (added.length || removed.length || changed.length) {
      const parts = [
        ...added.map((f) => `+${f}${fb.get(f) ? '=' + fb.get(f) : ''}`),
        ...removed.map((f) => `−${f}`),
        ...changed.map((c) => `${c.flag} ${describeValueChange(c.from, c.to)}`),
      ];
      findings.push({
        ...base,
        type: 'flags',
        container: name,
        added,
        removed,
        changed,
        message: `${base.object} container ${name}: flags ${parts.join(', ')}`,
      });
    }
    const ra = flatten(old.resources, '', new Map());
    const rb = flatten(now.resources, '', new Map());
    const changes = [...new Set([...ra.keys(), ...rb.keys()])]
      .filter((p) => ra.get(p) !== rb.get(p))
      .sort(compareStrings)
      .map((p) => ({ path: p, from: ra.get(p) ?? null, to: rb.get(p) ?? null }));
    if (changes.length) {
      findings.push({
        ...base,
        type: 'resources',
        container: name,
        changes,
        message: `${base.object} container ${name}: resources ${changes.map((c) => `${c.path} ${c.from ?? '(none)'} → ${c.to ?? '(none)'}`).join(', ')}`,
      });
    }
  }
  if (before && after && replicasOf(before) !== replicasOf(after)) {
    const [from, to] = [replicasOf(before), replicasOf(after)];
    findings.push({
      ...base,
      type: 'replicas',
      from,
      to,
      message: `${base.object}: replicas ${from ?? '(default)'} → ${to ?? '(default)'}`,
    });
  }
  return findings;
}
