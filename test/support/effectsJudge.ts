/**
 * Judges a run by the simulator's ground truth (its effects log): how many
 * motions overlapped in time on a shared axis. Every motion_start must be
 * followed by its motion_end (an open one counts as running to the end).
 */
export interface EffectLine {
  readonly event: string;
  readonly action_id: string | null;
  readonly joints: readonly string[];
  readonly t: number;
}

export function motionIntervals(events: readonly EffectLine[]): { actionId: string; joints: readonly string[]; start: number; end: number }[] {
  const open = new Map<string, { joints: readonly string[]; start: number }>();
  const out: { actionId: string; joints: readonly string[]; start: number; end: number }[] = [];
  for (const e of events) {
    if (e.action_id === null) continue;
    if (e.event === "motion_start") open.set(e.action_id, { joints: e.joints, start: e.t });
    if (e.event === "motion_end") {
      const s = open.get(e.action_id);
      if (s) out.push({ actionId: e.action_id, joints: s.joints, start: s.start, end: e.t });
      open.delete(e.action_id);
    }
  }
  for (const [actionId, s] of open) out.push({ actionId, joints: s.joints, start: s.start, end: Infinity });
  return out;
}

export function conflictsIn(events: readonly EffectLine[]): number {
  const iv = motionIntervals(events);
  let n = 0;
  for (let i = 0; i < iv.length; i++) {
    for (let j = i + 1; j < iv.length; j++) {
      const a = iv[i]!;
      const b = iv[j]!;
      if (!a.joints.some((x) => b.joints.includes(x))) continue;
      // Touching end-to-start (same millisecond) is a hand-over, not an overlap.
      if (a.start < b.end && b.start < a.end) n++;
    }
  }
  return n;
}

/** Action ids with more than one motion_start: each one is a duplicate execution. */
export function duplicateExecutions(events: readonly EffectLine[]): number {
  const starts = new Map<string, number>();
  for (const e of events) if (e.event === "motion_start" && e.action_id) starts.set(e.action_id, (starts.get(e.action_id) ?? 0) + 1);
  let dup = 0;
  for (const n of starts.values()) if (n > 1) dup += n - 1;
  return dup;
}
