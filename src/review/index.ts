/** The review stage: drift check and semantic diff of rendered trees. */
export { reviewChanges, reviewTrees, type ReviewTreeSide } from './review.js';
export { contractSeries } from './contracts.js';
export {
  afterRender,
  checkRendered,
  FleetFileDigests,
  renderedDigests,
  recordedSecretSourcesOf,
  recordedSecretVariables,
  pathFlags,
  withoutPathFlags,
  type CheckReport,
} from './check.js';
export { groupedTree, openOutputTree, treeInMemory, type ReviewTree } from './read-tree.js';
export { wiringRootNotes } from './wiring-roots.js';
export { manifestAtRevision } from './git-revision.js';
export { formatMarkdown } from './format-markdown.js';
export { formatText } from './format-text.js';
export { appendStepSummary, checkAnnotations, inGitHubActions, reviewAnnotations } from './github-actions.js';
export * from './types.js';
