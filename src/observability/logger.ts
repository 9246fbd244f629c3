import { pino, type Logger, type LoggerOptions } from "pino";
import { prettyDestination } from "./prettyLogLine.js";

export type { Logger } from "pino";

/**
 * The root logger. Logs go to stderr so that stdout stays free for the
 * one-line JSON ready events other tools parse. Level from ARMBRIDGE_LOG_LEVEL
 * (default "info"; "silent" in tests unless set). On a terminal each line is
 * written for a person (prettyLogLine); piped or redirected, one JSON object
 * per line for machines. ARMBRIDGE_LOG_FORMAT=json|pretty overrides the guess.
 */
export function createLogger(
  options: LoggerOptions = {},
  stderr: { readonly isTTY?: boolean } = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): Logger {
  const level = env.ARMBRIDGE_LOG_LEVEL ?? (env.VITEST ? "silent" : "info");
  return pino(
    { level, base: { app: "armbridge" }, ...options },
    logFormat(stderr, env) === "pretty" ? prettyDestination(2) : pino.destination({ dest: 2, sync: true }),
  );
}

/** How stderr's lines are written: pretty on a terminal, JSON otherwise, unless ARMBRIDGE_LOG_FORMAT says. */
export function logFormat(stderr: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv): "json" | "pretty" {
  const asked = env.ARMBRIDGE_LOG_FORMAT;
  if (asked === "json" || asked === "pretty") return asked;
  return stderr.isTTY === true ? "pretty" : "json";
}

/** A logger that drops everything, for library users who pass none. */
export const silentLogger: Logger = pino({ level: "silent" });
