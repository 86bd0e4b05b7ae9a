/**
 * Warnings told once per run: a command that resolves or renders twice (diff's two sides, update's
 * plan then its new versions) meets the same warning twice, and printing it twice says nothing more.
 */
import path from 'node:path';
import type { Diagnostic } from '../core/diagnostics.js';
import type { RenderOptions } from './types.js';

/**
 * `onWarning` options that pass each distinct warning on once (as `locate` names its file; one
 * render names a file by its absolute path, the other relative), across the renders that share them.
 */
export function toldOnce() {
  const told = new Set<string>();
  return (warn: ((w: Diagnostic) => void) | undefined, locate = (w: Diagnostic) => w): Pick<RenderOptions, 'onWarning'> =>
    warn
      ? {
          onWarning: (raw) => {
            const w = locate(raw);
            const key = [w.file && path.resolve(w.file), w.line, w.column, w.object, w.path, w.message, w.expected, w.hint].join('\0');
            if (!told.has(key)) warn(w);
            told.add(key);
          },
        }
      : {};
}
