/**
 * The time budget of all network requests of one run (`--network-deadline`,
 * CAPI_GITOPS_NETWORK_DEADLINE). Each request already has its own budget, retries included
 * (`HttpPolicy.timeoutMs`); this one bounds their sum, so a run against a server that hangs or
 * answers 5xx forever ends in bounded time however many files it asks for.
 *
 * The clock starts with the first request, so reading and validating input does not spend it.
 * One object is shared by every source of a run (it travels in `HttpPolicy.runDeadline`).
 */
export class NetworkDeadline {
  private endsAt: number | undefined;

  /**
   * @param budgetMs the budget in milliseconds
   * @param setting how the user sets it, for messages (e.g. `--network-deadline`)
   */
  constructor(
    readonly budgetMs: number,
    readonly setting = '--network-deadline',
  ) {}

  /** The epoch ms at which the budget ends; the first call starts the clock. */
  end(now: number = Date.now()): number {
    this.endsAt ??= now + this.budgetMs;
    return this.endsAt;
  }

  /** Milliseconds left (0 when spent); starts the clock. */
  remainingMs(now: number = Date.now()): number {
    return Math.max(0, this.end(now) - now);
  }

  /** e.g. `the network deadline of this run (900 s, --network-deadline)` */
  describe(): string {
    const seconds = this.budgetMs / 1000;
    return `the network deadline of this run (${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s, ${this.setting})`;
  }
}

/** The run budget when none is set: generous for a fleet's downloads, short of a CI job's own limit. */
export const DEFAULT_NETWORK_DEADLINE_SECONDS = 900;
