import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * Where an arm's ledger lives when no --data is given: a per-user state
 * folder named after the arm, the same whatever the working directory — so
 * starting from another folder never silently opens (or creates) another
 * ledger. `$XDG_STATE_HOME/armbridge/<arm name>`, else
 * `~/.local/state/armbridge/<arm name>`. The XDG base-directory spec says a
 * relative $XDG_STATE_HOME is invalid and to be ignored
 * (https://specifications.freedesktop.org/basedir-spec/latest/).
 */
export function defaultDataDir(armName: string, env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  const base =
    xdg !== undefined && xdg !== "" && isAbsolute(xdg)
      ? xdg
      : join(env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir(), ".local", "state");
  return join(base, "armbridge", armName);
}
