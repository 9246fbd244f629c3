import { describe, expect, it } from "vitest";
import { logFormat } from "../../src/observability/logger.js";
import { prettyLogLine } from "../../src/observability/prettyLogLine.js";

describe("serve's log: for a person on a terminal, JSON lines when piped", () => {
  it("chooses pretty on a TTY and JSON otherwise; ARMBRIDGE_LOG_FORMAT overrides", () => {
    expect(logFormat({ isTTY: true }, {})).toBe("pretty");
    expect(logFormat({ isTTY: false }, {})).toBe("json");
    expect(logFormat({}, {})).toBe("json");
    expect(logFormat({ isTTY: true }, { ARMBRIDGE_LOG_FORMAT: "json" })).toBe("json");
    expect(logFormat({ isTTY: false }, { ARMBRIDGE_LOG_FORMAT: "pretty" })).toBe("pretty");
  });

  it("writes a pino line as time, level, component and message, then the rest as key=value", () => {
    const time = new Date(2026, 11, 7, 12, 3, 4, 56).getTime();
    const line = JSON.stringify({
      level: 30,
      time,
      pid: 1,
      hostname: "h",
      app: "armbridge",
      component: "executor",
      action_id: "act_1",
      targets: { elbow: 1 },
      note: "two words",
      msg: "motion sent",
    });
    expect(prettyLogLine(line)).toBe(
      '12:03:04.056 INFO  executor: motion sent  action_id=act_1 targets={"elbow":1} note="two words"\n',
    );
    expect(prettyLogLine(JSON.stringify({ level: 40, time, msg: "intent ledger schema upgraded" }))).toBe(
      "12:03:04.056 WARN  intent ledger schema upgraded\n",
    );
    expect(prettyLogLine("not json")).toBe("not json\n");
  });
});
