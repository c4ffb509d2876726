/**
 * The scenario protocol (see bench/run.ts): a scenario file exports
 * `scenario`, whose `run` measures in the current (fresh) process and returns
 * its cases as plain data.
 */

export interface ScenarioOptions {
  /** Fewer samples and smaller sizes, for a smoke run. */
  readonly quick: boolean;
  /**
   * `--1m`: also the shapes at 1M rules (engine, scale: the scoped 1M shape,
   * minutes and ~3 GB each), left out of the default run to keep it bounded.
   */
  readonly million?: boolean;
  /** This run's number among the runner's runs of the scenario, from 0 (an HTTP comparison alternates its order by it). */
  readonly run?: number;
}

/** Latency and throughput of one measured subject; times in microseconds. */
export interface Timing {
  readonly samples: number;
  readonly p50_us: number;
  readonly p99_us: number;
  readonly ops_per_s: number;
}

export interface CaseResult {
  /** Stable across runs: results of several runs are matched by it. */
  readonly case: string;
  /** The subject measured (our engine, our server). */
  readonly subject?: Timing;
  /** The same work done by the baseline, in the same process run. */
  readonly baseline?: Timing & { readonly name: string };
  /** Anything else worth reporting (workload figures, RSS, ...): numbers are medianed across runs. */
  readonly figures?: { readonly [name: string]: number | string };
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  run(options: ScenarioOptions): Promise<CaseResult[]>;
}
