/** A flag combination commander cannot express; exit code 2. */
export class UsageError extends Error {}
