/** A flag combination commander cannot express; exit code 2. */
export class UsageError extends Error {}

/** A command that ran and reported its result by exit code (e.g. `check` finding drift). */
export class ExitStatus extends Error {
  constructor(readonly code: number) {
    super(`exit status ${code}`);
  }
}
