import { describe, expect, it } from "vitest";
import { ProcessScope } from "../../../src/surfaces/runtime/ProcessScope.js";

describe("ProcessScope", () => {
  it("closes last opened first, each once", async () => {
    const scope = new ProcessScope();
    const closed: string[] = [];
    for (const what of ["port", "simulator", "bridge", "HTTP"]) scope.add(what, () => void closed.push(what));
    await scope.close();
    await scope.close();
    expect(closed).toEqual(["HTTP", "bridge", "simulator", "port"]);
  });

  it("leaves out what another resource took over", async () => {
    const scope = new ProcessScope();
    const closed: string[] = [];
    const dropPort = scope.add("port", () => void closed.push("port"));
    scope.add("bridge", () => void closed.push("bridge"));
    dropPort();
    scope.add("HTTP", () => void closed.push("HTTP"));
    await scope.close();
    expect(closed).toEqual(["HTTP", "bridge"]);
  });

  it("closes the rest after a failure: said to onError, else thrown once all closed", async () => {
    const closed: string[] = [];
    const failing = (): ProcessScope => {
      const scope = new ProcessScope();
      scope.add("bridge", () => void closed.push("bridge"));
      scope.add("HTTP", () => Promise.reject(new Error("socket stuck")));
      return scope;
    };
    const said: string[] = [];
    await failing().close((what, error) => said.push(`${what}: ${(error as Error).message}`));
    expect(said).toEqual(["HTTP: socket stuck"]);
    await expect(failing().close()).rejects.toThrow("socket stuck");
    expect(closed).toEqual(["bridge", "bridge"]);
  });

  it("closeWithin says timed_out when a close does not end in time, and closed otherwise", async () => {
    const stuck = new ProcessScope();
    stuck.add("bridge", () => new Promise<void>(() => undefined));
    expect(await stuck.closeWithin(20)).toBe("timed_out");
    const quick = new ProcessScope();
    quick.add("bridge", () => undefined);
    expect(await quick.closeWithin(10_000)).toBe("closed");
  });
});
