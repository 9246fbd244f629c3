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
