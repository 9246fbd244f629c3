import { writeSync } from "node:fs";

/** pino's numeric levels in words, padded so messages line up. */
const LEVEL_WORDS: Readonly<Record<number, string>> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO ",
  40: "WARN ",
  50: "ERROR",
  60: "FATAL",
};

/** Fields every line has, said by the line's head instead of as key=value. */
const HEAD_FIELDS = new Set(["level", "time", "msg", "pid", "hostname", "app", "component"]);

/**
 * One pino JSON line as a person reads it on a terminal:
 * `12:03:04.567 INFO  executor: motion sent action_id=act_1 targets={"elbow":1}`.
 * A line that is not JSON is passed through as it is.
 */
export function prettyLogLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  const time = typeof record.time === "number" ? clock(record.time) : "--:--:--.---";
  const level = LEVEL_WORDS[typeof record.level === "number" ? record.level : 30] ?? String(record.level);
  const component = typeof record.component === "string" ? `${record.component}: ` : "";
  const rest = Object.entries(record)
    .filter(([k]) => !HEAD_FIELDS.has(k))
    .map(([k, v]) => `${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`);
  return `${time} ${level} ${component}${typeof record.msg === "string" ? record.msg : ""}${rest.length ? `  ${rest.join(" ")}` : ""}\n`;
}

/**
 * A pino destination that writes each line pretty to file descriptor `fd`,
 * synchronously like pino.destination({sync: true}), so nothing logged before
 * an exit is lost. Written here rather than taken from pino-pretty, which is
 * not a dependency of armbridge.
 */
export function prettyDestination(fd: number): { write(chunk: string): boolean } {
  let pending = "";
  return {
    write(chunk: string): boolean {
      pending += chunk;
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        writeSync(fd, prettyLogLine(pending.slice(0, nl)));
        pending = pending.slice(nl + 1);
      }
      return true;
    },
  };
}

function clock(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2): string => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}
