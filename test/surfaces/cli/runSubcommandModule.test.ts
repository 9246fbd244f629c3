import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { DYNAMIC, runCli, runSubcommandModule } from "../../../src/surfaces/cli/runCli.js";

function memoryIo() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  return { io: { stdout, stderr, env: {} }, out: () => out, err: () => err };
}

describe("runSubcommandModule", () => {
  it("runs the module's run(argv, io) and returns its exit code", async () => {
    const m = memoryIo();
    const code = await runSubcommandModule(
      "echo",
      new URL("./fixtures/echoCommand.ts", import.meta.url),
      ["a", "b"],
      m.io,
    );
    expect(code).toBe(2);
    expect(JSON.parse(m.out())).toEqual({ argv: ["a", "b"] });
  });

  it("says clearly when the command's module is missing from the build (exit 1)", async () => {
    const m = memoryIo();
    const code = await runSubcommandModule("agent", new URL("./fixtures/noSuchCommand.js", import.meta.url), [], m.io);
    expect(code).toBe(1);
    expect(m.err()).toContain("the agent command is not available in this build");
    expect(m.err()).toContain("noSuchCommand.js");
  });
});

describe("the commands of other surfaces", () => {
  it.each(Object.keys(DYNAMIC))("`%s` loads the module its missing-build message names", async (name) => {
    const command = DYNAMIC[name];
    if (command === undefined) throw new Error(name);
    const named: unknown = await import(
      new URL(command.module, new URL("../../../src/surfaces/cli/runCli.ts", import.meta.url)).href.replace(
        /\.js$/,
        ".ts",
      )
    );
    expect(await command.load()).toBe(named);
  });
});

describe("runCli in-process", () => {
  it("prints the top-level help on stdout and nothing on stderr", async () => {
    const m = memoryIo();
    expect(await runCli(["--help"], m.io)).toBe(0);
    expect(m.out()).toContain("serve");
    expect(m.err()).toBe("");
  });
});
