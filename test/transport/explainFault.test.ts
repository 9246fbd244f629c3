import { describe, expect, it } from "vitest";
import { explainFault } from "../../src/transport/explainFault.js";

describe("explainFault: every fault says what clears it", () => {
  it.each([
    ["stall:wrist_2", /stop on wrist_2 .*"joints":\["wrist_2"\].* or with the next motion on it/],
    ["axis wrist_2 stalled", /stop on wrist_2 .*"joints":\["wrist_2"\].* or with the next motion on it/],
    ["watchdog", /next frame reaches the arm/],
    ["servo 3 (elbow): torque off", /switches it back on holding its position/],
    [
      "servo 3 (elbow): overload, overheating",
      /hardware error \(overload, overheating\).*armbridge recover --joint elbow --operator NAME/,
    ],
    [
      "servo 3 (elbow): shut down on overload, torque off until recovered",
      /refused.*armbridge recover --joint elbow --operator NAME.*holding the present position/,
    ],
    ["something the firmware invented", /does not clear it/],
  ])("%s", (fault, words) => {
    const help = explainFault(fault);
    expect(help.fault).toBe(fault);
    expect(help.clears).toMatch(words);
  });
});
