import type { CallStatus } from "./CallResult.js";

/** Duration buckets (ms) for the Prometheus histogram: motions run 0.1–20 s, reads < 10 ms. */
const BUCKETS_MS = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 20000, 60000] as const;
/** Recent durations kept per tool for p50/p99: bounded so memory stays flat on a long-running node. */
const RESERVOIR = 2048;

interface PerTool {
  readonly buckets: number[];
  count: number;
  sumMs: number;
  timedOut: number;
  readonly outcomes: Map<CallStatus, number>;
  readonly settledBy: Map<string, number>;
  readonly recent: number[];
  next: number;
}

export interface ToolSummary {
  readonly tool: string;
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly timedOutShare: number;
  readonly outcomes: Readonly<Record<string, number>>;
}

/** The one label every call to a tool the registry does not hold counts under. */
export const UNKNOWN_TOOL_LABEL = "(unknown)";

export interface ToolMetricsOptions {
  /**
   * Whether a name is a registered tool. Names it refuses count under
   * UNKNOWN_TOOL_LABEL: a label value is a series kept for the life of the
   * process, and a model that invents tool names (or a client that sends
   * random ones) must not grow memory and /metrics without bound.
   * Default: every name is its own series (for a fixed set of callers only).
   */
  readonly isKnownTool?: (name: string) => boolean;
}

/** Per-tool duration histograms, outcomes and the share of calls that timed out. */
export class ToolMetrics {
  readonly #tools = new Map<string, PerTool>();
  readonly #isKnownTool: (name: string) => boolean;

  constructor(options: ToolMetricsOptions = {}) {
    this.#isKnownTool = options.isKnownTool ?? (() => true);
  }

  record(name: string, sample: { durationMs: number; status: CallStatus; timedOut: boolean; settledBy: string }): void {
    const tool = this.#isKnownTool(name) ? name : UNKNOWN_TOOL_LABEL;
    let t = this.#tools.get(tool);
    if (!t) {
      t = {
        buckets: BUCKETS_MS.map(() => 0),
        count: 0,
        sumMs: 0,
        timedOut: 0,
        outcomes: new Map(),
        settledBy: new Map(),
        recent: [],
        next: 0,
      };
      this.#tools.set(tool, t);
    }
    t.count += 1;
    t.sumMs += sample.durationMs;
    if (sample.timedOut) t.timedOut += 1;
    t.outcomes.set(sample.status, (t.outcomes.get(sample.status) ?? 0) + 1);
    t.settledBy.set(sample.settledBy, (t.settledBy.get(sample.settledBy) ?? 0) + 1);
    BUCKETS_MS.forEach((le, i) => {
      if (sample.durationMs <= le) t.buckets[i] = (t.buckets[i] ?? 0) + 1;
    });
    if (t.recent.length < RESERVOIR) t.recent.push(sample.durationMs);
    else {
      t.recent[t.next] = sample.durationMs;
      t.next = (t.next + 1) % RESERVOIR;
    }
  }

  summary(): ToolSummary[] {
    return [...this.#tools.entries()].map(([tool, t]) => {
      const sorted = [...t.recent].sort((a, b) => a - b);
      return {
        tool,
        count: t.count,
        p50Ms: quantile(sorted, 0.5),
        p99Ms: quantile(sorted, 0.99),
        timedOutShare: t.count ? t.timedOut / t.count : 0,
        outcomes: Object.fromEntries(t.outcomes),
      };
    });
  }

  /** Prometheus text exposition format 0.0.4. */
  toPrometheus(): string {
    const lines: string[] = [
      "# HELP armbridge_tool_duration_ms Wall time of a tool call, from arrival to settled result.",
      "# TYPE armbridge_tool_duration_ms histogram",
    ];
    for (const [tool, t] of this.#tools) {
      BUCKETS_MS.forEach((le, i) =>
        lines.push(`armbridge_tool_duration_ms_bucket{tool="${esc(tool)}",le="${le}"} ${t.buckets[i] ?? 0}`),
      );
      lines.push(`armbridge_tool_duration_ms_bucket{tool="${esc(tool)}",le="+Inf"} ${t.count}`);
      lines.push(`armbridge_tool_duration_ms_sum{tool="${esc(tool)}"} ${t.sumMs}`);
      lines.push(`armbridge_tool_duration_ms_count{tool="${esc(tool)}"} ${t.count}`);
    }
    lines.push(
      "# HELP armbridge_tool_outcomes_total Tool calls by result status.",
      "# TYPE armbridge_tool_outcomes_total counter",
    );
    for (const [tool, t] of this.#tools)
      for (const [status, n] of t.outcomes)
        lines.push(`armbridge_tool_outcomes_total{tool="${esc(tool)}",status="${status}"} ${n}`);
    lines.push(
      "# HELP armbridge_tool_settled_total Tool calls by what settled them.",
      "# TYPE armbridge_tool_settled_total counter",
    );
    for (const [tool, t] of this.#tools)
      for (const [by, n] of t.settledBy)
        lines.push(`armbridge_tool_settled_total{tool="${esc(tool)}",settled_by="${esc(by)}"} ${n}`);
    lines.push(
      "# HELP armbridge_tool_timeouts_total Tool calls whose wait ended by timeout.",
      "# TYPE armbridge_tool_timeouts_total counter",
    );
    for (const [tool, t] of this.#tools) lines.push(`armbridge_tool_timeouts_total{tool="${esc(tool)}"} ${t.timedOut}`);
    lines.push(
      "# HELP armbridge_tool_timeout_share Share of a tool's calls whose wait ended by timeout.",
      "# TYPE armbridge_tool_timeout_share gauge",
    );
    for (const [tool, t] of this.#tools)
      lines.push(`armbridge_tool_timeout_share{tool="${esc(tool)}"} ${t.count ? t.timedOut / t.count : 0}`);
    return lines.join("\n") + "\n";
  }
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] ?? 0;
}

function esc(label: string): string {
  return label.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
