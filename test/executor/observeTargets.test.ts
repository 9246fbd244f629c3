import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { observeTargets } from "../../src/executor/toolContract/observeTargets.js";
import type { ActionRecord } from "../../src/transport/Transport.js";

// A gripper that closed on an object settles the call `reached`; the words the model reads are the
// transport's own, because only the transport knows whether its gripper goes on pressing.

const config = loadConfig();

function grasped(detail?: string): ActionRecord {
  return { actionId: "g", state: "grasped", moved: true, ...(detail === undefined ? {} : { detail }) };
}

function look(record: ActionRecord) {
  return observeTargets({
    command: { actionId: "g", targets: { gripper: 0 }, speed: 1 },
    config,
    status: undefined,
    record,
    nowMs: Date.now(),
  });
}

describe("observeTargets: a grasped record", () => {
  it("a gripper that holds what it closed on: the transport's words, up to the first ';'", () => {
    const o = look(
      grasped(
        "closed on an object at 0.500 of its opening and holds it; /gripper_controller/gripper_cmd: status 6, stalled true",
      ),
    );
    expect(o.verdict).toBe("reached");
    expect(o.detail).toBe("the gripper closed on an object at 0.500 of its opening and holds it");
    expect(o.notes.join(" ")).toMatch(/stalled true/);
  });

  it("a gripper that keeps no force on it (a failed franka grasp) is never said to hold it", () => {
    const o = look(
      grasped(
        "closed on an object at width 0.031 m, but franka_gripper counts it no grasp (more than its ε 0.005 m from the width 0.000 m asked for) and keeps no grasp force on it; status 6",
      ),
    );
    expect(o.verdict).toBe("reached");
    expect(o.detail).toMatch(
      /^the gripper closed on an object at width 0\.031 m, but franka_gripper counts it no grasp/,
    );
    expect(o.detail).not.toMatch(/holds it/);
  });

  it("without the transport's words: where it closed is not known, and holding is not claimed", () => {
    const o = look(grasped());
    expect(o.verdict).toBe("reached");
    expect(o.detail).toBe("the gripper closed on an object, short of the commanded opening");
  });
});
