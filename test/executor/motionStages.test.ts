import { describe, expect, it } from "vitest";
import type { CallResult } from "../../src/executor/calls/CallResult.js";
import { skipped } from "../../src/executor/calls/callResults.js";
import {
  CONTINUE,
  runStages,
  type MotionCall,
  type MotionDeps,
  type Stage,
  type StageResult,
} from "../../src/executor/motion/MotionStage.js";

const call = {} as MotionCall;
const deps = {} as MotionDeps;

const refused: CallResult = skipped("move_joints");

describe("runStages", () => {
  it("runs stages that have nothing to wait for in the same tick, and stops at the first result", () => {
    const ran: string[] = [];
    const stage =
      (name: string, answer: typeof CONTINUE | CallResult = CONTINUE): Stage =>
      () => {
        ran.push(name);
        return answer;
      };
    const answer = runStages([stage("a"), stage("b", refused), stage("c")], call, deps);
    // Not a promise: nothing else can run between one synchronous stage and the next.
    expect(answer).toBe(refused);
    expect(ran).toEqual(["a", "b"]);
  });

  it("waits only where a stage returned a promise, then runs the synchronous stages after it in one tick", async () => {
    const ran: string[] = [];
    let yielded = false;
    const later: Stage = async (): Promise<StageResult> => {
      ran.push("later");
      await Promise.resolve();
      return CONTINUE;
    };
    const second: Stage = () => {
      ran.push("second");
      // Runs only if the runner yields before the next stage.
      queueMicrotask(() => (yielded = true));
      return CONTINUE;
    };
    const third: Stage = () => {
      ran.push("third");
      return yielded ? refused : CONTINUE;
    };
    await expect(runStages([later, second, third], call, deps)).resolves.toBe(CONTINUE);
    expect(ran).toEqual(["later", "second", "third"]);
  });
});
