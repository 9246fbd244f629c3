import { existsSync, readFileSync } from "node:fs";

export interface EffectLine {
  event: string;
  action_id: string | null;
  joints: string[];
  from?: Record<string, number>;
  to?: Record<string, number>;
  outcome?: string;
  t: number;
  [key: string]: unknown;
}

export function readEffects(path: string): EffectLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EffectLine);
}

/** Waits until every motion_start in the log has its motion_end (or `withinMs` passes), so a test starts from rest. */
export async function motionsEnded(path: string, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  for (;;) {
    const open = new Set<string>();
    for (const e of readEffects(path)) {
      if (e.action_id === null) continue;
      if (e.event === "motion_start") open.add(e.action_id);
      if (e.event === "motion_end") open.delete(e.action_id);
    }
    if (open.size === 0 || Date.now() > until) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
