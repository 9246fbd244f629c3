import { pino, type Logger, type LoggerOptions } from "pino";

export type { Logger } from "pino";

/**
 * The root logger. Logs go to stderr so that stdout stays free for the
 * one-line JSON ready events other tools parse. Level from ARMBRIDGE_LOG_LEVEL
 * (default "info"; "silent" in tests unless set).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = process.env.ARMBRIDGE_LOG_LEVEL ?? (process.env.VITEST ? "silent" : "info");
  return pino({ level, base: { app: "armbridge" }, ...options }, pino.destination({ dest: 2, sync: true }));
}

/** A logger that drops everything, for library users who pass none. */
export const silentLogger: Logger = pino({ level: "silent" });
