import { readFileSync } from "node:fs";

/**
 * The judge of firmware-sim's effects log (ground truth, one JSON line per
 * physical event): tests and benchmarks count overlaps, duplicate executions
 * and outcomes from it, never from what the bridge says about itself. Pure
 * functions over parsed lines, checked on hand-made logs in test/bench/.
 */
export interface EffectLine {
  readonly event: string;
  readonly action_id: string | null;
  readonly joints: readonly string[];
  readonly t: number;
  /** On a servo bus, where action_id is null: the simulator's name for the motion. */
  readonly motion?: string;
  readonly outcome?: string;
  /** Axis → position; on motion_end, `to` is where the axes came to rest. */
  readonly from?: Readonly<Record<string, number>>;
  readonly to?: Readonly<Record<string, number>>;
}

export interface MotionInterval {
  readonly actionId: string;
  readonly joints: readonly string[];
  readonly start: number;
  /** Infinity when the log has no motion_end for it (still running when read). */
  readonly end: number;
  /** The motion_end outcome (reached, stopped, stalled, faulted); undefined while open. */
  readonly outcome: string | undefined;
}

/** Reads a JSONL effects log; a missing file is an empty log (the sim writes nothing until the first motion). */
export function readEffects(path: string): EffectLine[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as EffectLine);
}

/** Only the lines about these action ids (one experiment's share of a shared log). */
export function linesFor(events: readonly EffectLine[], actionIds: Iterable<string>): EffectLine[] {
  const ids = new Set(actionIds);
  return events.filter((e) => e.action_id !== null && ids.has(e.action_id));
}

/** Each motion_start paired with its motion_end. */
export function motionIntervals(events: readonly EffectLine[]): MotionInterval[] {
  const open = new Map<string, { joints: readonly string[]; start: number }>();
  const out: MotionInterval[] = [];
  for (const e of events) {
    const key = e.action_id ?? e.motion;
    if (key === undefined) continue;
    if (e.event === "motion_start") open.set(key, { joints: e.joints, start: e.t });
    if (e.event === "motion_end") {
      const s = open.get(key);
      if (s) out.push({ actionId: key, joints: s.joints, start: s.start, end: e.t, outcome: e.outcome });
      open.delete(key);
    }
  }
  for (const [actionId, s] of open)
    out.push({ actionId, joints: s.joints, start: s.start, end: Infinity, outcome: undefined });
  return out;
}

/** Pairs of motions (action ids) that drove a shared axis at the same time: each is a forbidden overlap (a collision on hardware). */
export function overlappingPairs(events: readonly EffectLine[]): [string, string][] {
  const iv = motionIntervals(events);
  const pairs: [string, string][] = [];
  for (let i = 0; i < iv.length; i++) {
    for (let j = i + 1; j < iv.length; j++) {
      const a = iv[i]!;
      const b = iv[j]!;
      if (!a.joints.some((x) => b.joints.includes(x))) continue;
      // End-to-start in the same millisecond is a hand-over, not an overlap.
      if (a.start < b.end && b.start < a.end) pairs.push([a.actionId, b.actionId]);
    }
  }
  return pairs;
}

/** How many forbidden overlaps the log shows. */
export function overlapsIn(events: readonly EffectLine[]): number {
  return overlappingPairs(events).length;
}

/** Second and later motion_starts of one action id: each is the same command executed again. */
export function repeatedStarts(events: readonly EffectLine[]): number {
  const seen = new Set<string>();
  let n = 0;
  for (const e of events) {
    if (e.event !== "motion_start" || e.action_id === null) continue;
    if (seen.has(e.action_id)) n++;
    seen.add(e.action_id);
  }
  return n;
}

/** How many motions physically started (faulted-at-start ones included: the drive was commanded). */
export function motionStarts(events: readonly EffectLine[]): number {
  return events.filter((e) => e.event === "motion_start").length;
}

/**
 * Duplicate executions of logical calls. A logical call is the list of action
 * ids one caller used for one intended motion (a naive retry mints a new id
 * per attempt). A motion_start is a duplicate when an earlier start of the
 * same call had already run — ended in anything but a fault at start, or is
 * still running. A start after a genuine failure (the drive faulted before
 * moving) is a legitimate re-run, not a duplicate; a second start of the same
 * id always is one.
 */
export function duplicateExecutions(
  events: readonly EffectLine[],
  logicalCalls: readonly (readonly string[])[],
): number {
  const callOf = new Map<string, number>();
  logicalCalls.forEach((ids, k) => ids.forEach((id) => callOf.set(id, k)));
  const startedIds = new Set<string>();
  /** Per call, its attempts that count as having run (started, and not ended by a fault before moving). */
  const ran = new Map<number, Set<string>>();
  let duplicates = 0;
  for (const e of events) {
    if (e.action_id === null) continue;
    const k = callOf.get(e.action_id);
    if (k === undefined) continue;
    const attempts = ran.get(k) ?? new Set<string>();
    ran.set(k, attempts);
    if (e.event === "motion_start") {
      if (startedIds.has(e.action_id) || attempts.size > 0) duplicates++;
      startedIds.add(e.action_id);
      attempts.add(e.action_id);
    }
    if (e.event === "motion_end" && faultedBeforeMoving(e)) attempts.delete(e.action_id);
  }
  return duplicates;
}

/** A drive fault at start: the motion ended "faulted" exactly where it began. */
function faultedBeforeMoving(e: EffectLine): boolean {
  if (e.outcome !== "faulted" || !e.from || !e.to) return false;
  const to = e.to;
  return Object.entries(e.from).every(([axis, p]) => to[axis] === p);
}

/** What the effects log says became of one action id. */
export type GroundTruth = "reached" | "ended_short" | "never_started" | "still_running";

export function groundTruthOf(events: readonly EffectLine[], actionId: string): GroundTruth {
  let started = false;
  for (const e of events) {
    if (e.action_id !== actionId) continue;
    if (e.event === "motion_start") started = true;
    if (e.event === "motion_end") return e.outcome === "reached" ? "reached" : "ended_short";
  }
  return started ? "still_running" : "never_started";
}

export interface TimeoutTrial {
  readonly actionId: string;
  /** Did the caller's wait end by timeout. */
  readonly timedOut: boolean;
}

export interface TimeoutClassification {
  readonly trials: number;
  readonly fired: number;
  /** Fired timeouts whose motion in fact reached its target (per the effects log). */
  readonly firedButSucceeded: number;
  /** Fired timeouts whose motion genuinely failed, or never started. */
  readonly firedAndFailed: number;
}

/** The seed's central question: of the timeouts that fired, how many were on motions that had succeeded anyway. */
export function classifyTimeouts(
  events: readonly EffectLine[],
  trials: readonly TimeoutTrial[],
): TimeoutClassification {
  let fired = 0;
  let succeeded = 0;
  for (const trial of trials) {
    if (!trial.timedOut) continue;
    fired++;
    if (groundTruthOf(events, trial.actionId) === "reached") succeeded++;
  }
  return { trials: trials.length, fired, firedButSucceeded: succeeded, firedAndFailed: fired - succeeded };
}

/** The time each action's motion ended, from the log (epoch ms), for those that ended. */
export function motionEndTimes(events: readonly EffectLine[]): Map<string, number> {
  const ends = new Map<string, number>();
  for (const e of events) if (e.event === "motion_end" && e.action_id !== null) ends.set(e.action_id, e.t);
  return ends;
}

/** Nearest-rank quantile of unsorted samples; NaN for none. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * How many of these actions' motions ran longer than `ms` by the simulator's
 * own clock. Unlike "timeouts fired", this does not race the link: it is the
 * same for the same seed, so it shows how much of a fired count is the draw
 * and how much is timing at the boundary.
 */
export function motionsLongerThan(events: readonly EffectLine[], actionIds: readonly string[], ms: number): number {
  const ids = new Set(actionIds);
  return motionIntervals(events).filter((iv) => ids.has(iv.actionId) && iv.end - iv.start > ms).length;
}
