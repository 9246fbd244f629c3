import { describe, expect, it } from "vitest";
import { isArmbridgeError } from "../../../src/errors.js";
import { parseBridgeFlags } from "../../../src/surfaces/runtime/bridgeFlags.js";

function usageError(argv: string[]): unknown {
  try {
    parseBridgeFlags(argv);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("parseBridgeFlags", () => {
  it("takes --serial, --config and --data out and leaves the rest in order", () => {
    const { options, rest } = parseBridgeFlags([
      "serve",
      "--serial",
      "tcp://127.0.0.1:9",
      "--http",
      "127.0.0.1:0",
      "--config=arm.yaml",
      "--data",
      "/tmp/d",
      "x",
    ]);
    expect(options).toEqual({
      config: "arm.yaml",
      dataDir: "/tmp/d",
      otherArm: "refuse",
      transport: { kind: "serial", link: "tcp://127.0.0.1:9" },
    });
    expect(rest).toEqual(["serve", "--http", "127.0.0.1:0", "x"]);
  });

  it("leaves the data folder to Bridge.start (the per-user default for the arm) when --data is not given", () => {
    expect(parseBridgeFlags(["--serial", "/dev/ttyACM0"]).options.dataDir).toBeUndefined();
  });

  it("--adopt-ledger takes over a ledger of another arm identity; without it such a ledger is refused", () => {
    expect(parseBridgeFlags(["--serial", "/dev/ttyACM0", "--adopt-ledger"]).options.otherArm).toBe("adopt");
    expect(parseBridgeFlags(["--serial", "/dev/ttyACM0"]).options.otherArm).toBe("refuse");
  });

  it("passes --ros-args through to rcl up to a lone --", () => {
    const { options, rest } = parseBridgeFlags([
      "--ros-args",
      "-p",
      "a:=1",
      "-r",
      "__ns:=/arm",
      "--",
      "after",
      "--params-file",
      "p.yaml",
    ]);
    expect(options.transport).toEqual({
      kind: "ros2",
      argv: ["armbridge", "--ros-args", "-p", "a:=1", "-r", "__ns:=/arm"],
      paramsFile: "p.yaml",
    });
    expect(rest).toEqual(["after"]);
  });

  it("leaves the command's own flags, short ones, their values and what follows a lone -- in order", () => {
    const { options, rest } = parseBridgeFlags([
      "--deadline-ms",
      "900",
      "-h",
      "--serial=tcp://127.0.0.1:9",
      "--json",
      "--data",
      "d",
      "--",
      "--config",
      "x",
    ]);
    expect(options.transport).toEqual({ kind: "serial", link: "tcp://127.0.0.1:9" });
    expect(options.dataDir).toBe("d");
    expect(options.config).toBeUndefined();
    expect(rest).toEqual(["--deadline-ms", "900", "-h", "--json", "--", "--config", "x"]);
  });

  it("accepts --ros alone", () => {
    expect(parseBridgeFlags(["--ros"]).options.transport).toEqual({
      kind: "ros2",
      argv: ["armbridge"],
      paramsFile: undefined,
    });
  });

  it("allows no transport when the command says it is optional", () => {
    expect(parseBridgeFlags(["--data", "d"], { transport: "optional" }).options.transport).toBeUndefined();
  });

  it.each([
    ["a missing value", ["--serial"]],
    ["a flag where a value belongs", ["--config", "--serial", "x"]],
    ["an empty value", ["--serial="]],
    ["both --serial and --ros", ["--serial", "x", "--ros"]],
    ["--serial with --ros-args", ["--serial", "x", "--ros-args", "-p", "a:=1"]],
    ["no arm at all", ["--data", "d"]],
    ["a flag given twice", ["--serial", "a", "--serial", "b"]],
    ["a switch given a value", ["--serial", "x", "--adopt-ledger=yes"]],
  ])("refuses %s with ARMB_ERR_CLI_USAGE", (_what, argv) => {
    expect(isArmbridgeError(usageError(argv), "ARMB_ERR_CLI_USAGE")).toBe(true);
  });
});
