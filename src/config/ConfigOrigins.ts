import type { z } from "zod";

type Path = readonly PropertyKey[];

/**
 * Which file and key set each value of a merged config. A config is checked
 * once, after every source is merged into it (the YAML, a calibration file),
 * so a problem is found wherever it came from; this map turns the merged
 * path of an issue back into the place to fix it (`cal.json:
 * shoulder_lift.id`). A path with no recorded origin came from the config
 * file itself.
 */
export class ConfigOrigins {
  readonly #byPath = new Map<string, string>();

  set(path: Path, origin: string): void {
    this.#byPath.set(keyOf(path), origin);
  }

  /** The origin recorded for the path or its nearest recorded ancestor. */
  of(path: Path): string | undefined {
    for (let n = path.length; n > 0; n--) {
      const origin = this.#byPath.get(keyOf(path.slice(0, n)));
      if (origin !== undefined) return origin;
    }
    return undefined;
  }

  /** Each issue as `where: what`, where is the origin of its path, else the path in the config file (`arm.joints[1].servo.id`). */
  describe(issues: readonly z.core.$ZodIssue[]): string[] {
    return issues.map((i) => `${this.of(i.path) ?? configPath(i.path)}: ${i.message}`);
  }
}

function keyOf(path: Path): string {
  return JSON.stringify(path.map((p) => (typeof p === "symbol" ? p.toString() : p)));
}

/** `arm.joints[1].servo.id`; `(config)` for the whole file. */
export function configPath(path: Path): string {
  if (path.length === 0) return "(config)";
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("");
}
