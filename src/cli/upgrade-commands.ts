/**
 * `plan` and `update`: loaded when one of them runs (src/cli/program.ts), so a render parses
 * neither the upgrade planner nor the manifest editor.
 */
import { plan } from '../app/plan.js';
import { update } from '../app/update.js';
import { heldBackByRange, pinnedBelowText, renderUpgradePlanText } from '../resolve/upgrade-plan.js';
import { lockReport, renderOptions, resolutionJson, withProgress, type SourceFlags } from './commands.js';
import { completeSuggestions } from './hints.js';
import { Output, streams } from './output.js';
import { UsageError } from './errors.js';
import { displayPath } from '../core/diagnostics.js';
import { shellWord } from '../core/shell.js';

export async function planCommand(flags: SourceFlags & { release?: string; cluster?: string[] }): Promise<void> {
  // without --release, plan reads the lock as a whole: a --cluster would be silently ignored
  if (flags.cluster?.length && flags.release === undefined)
    throw new UsageError('plan --cluster chooses the clusters of a fleet that --release moves; add --release <name>, or drop --cluster');
  const out = new Output(flags);
  const result = await withProgress(flags, (progress) =>
    plan(renderOptions(flags, progress, flags.release !== undefined ? { clusters: flags.cluster } : {}), flags.release),
  );
  if (result.release !== undefined) {
    const { release } = result;
    if (out.json) return out.document('plan', { release, clusters: result.clusters });
    for (const c of result.clusters) {
      out.line(`cluster ${c.name}: ${c.from ?? '(no release)'} → ${release}${c.moves.length === 0 ? ', no version changes' : ''}`);
      for (const m of c.moves) {
        const contract = m.fromContract ? `, contract ${m.fromContract} → ${m.toContract}` : '';
        out.line(`  ${m.component}: ${m.from ?? '(absent)'} → ${m.to ?? '(absent)'}${contract}`);
      }
    }
    return;
  }
  if (out.json) out.document('plan', { ...result.plan });
  // The plan suggests `capi-gitops update …`: complete it so it runs as printed.
  else if (!flags.quiet) streams.stdout.write(completeSuggestions(renderUpgradePlanText(result.plan), flags));
}

export async function updateCommand(providers: string[], flags: SourceFlags & { contract?: string; images?: boolean }): Promise<void> {
  // flags that can never work together are told before anything is read, as a usage error
  if (flags.images && flags.offline) {
    const instead = ['capi-gitops update --images', ...providers.map(shellWord)].join(' ');
    throw new UsageError(
      completeSuggestions(
        `--images and --offline cannot be used together: --images asks each registry which digest its tags serve now, and --offline asks no registry; run \`${instead}\` (without --offline)`,
        { ...flags, offline: false },
      ),
    );
  }
  const out = new Output(flags);
  const result = await withProgress(flags, (progress) =>
    update(renderOptions(flags, progress), { contract: flags.contract, providers, images: flags.images }),
  );
  for (const edit of result.edits) {
    const where = `${displayPath(edit.file)}:${edit.line}`;
    const what = `${edit.kind}/${edit.namespace}/${edit.name}`;
    if (edit.status === 'updated') out.line(`${where}: ${what} spec.version ${edit.oldVersion} → ${edit.newVersion}`);
    else if (edit.status === 'not-pinned')
      out.line(`${where}: ${what} has no exact spec.version; the lockfile moves to ${edit.newVersion}`);
    else if (edit.status === 'skipped') out.line(`${where}: ${what} not updated: ${edit.reason ?? 'edit it by hand'}`);
  }
  const lockfile = lockReport(result.resolution, result.lockWritten, out);
  // update moves providers only: a pinned cert-manager below the default is not "up to date"
  const pinned = result.plan?.certManager && pinnedBelowText(result.plan.certManager);
  if (pinned) out.line(pinned);
  if (result.resolution.lock.changes.length === 0 && result.files.length === 0) {
    const ranges =
      result.plan && heldBackByRange(result.plan) ? ', as far as their version ranges allow (capi-gitops plan shows how far)' : '';
    out.line(pinned || ranges ? `the providers are up to date${ranges}` : 'everything is up to date');
  }
  if (out.json) {
    const edits = result.edits.map((edit) => ({ ...edit, file: displayPath(edit.file) }));
    out.document('update', { ...resolutionJson(result.resolution), edits, manifestFiles: result.files.map(displayPath), lockfile });
  }
}
