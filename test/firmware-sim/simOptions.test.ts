import { describe, expect, it } from "vitest";
import { parseSimArgs } from "../../firmware-sim/simOptions.js";

describe("armbridge-sim flags", () => {
  it("parses every flag other tools rely on", () => {
    const parsed = parseSimArgs([
      "--link",
      "tcp",
      "--port",
      "0",
      "--seed",
      "42",
      "--effects-log",
      "/tmp/e.jsonl",
      "--motion-time",
      "lognormal:150:0.5",
      "--fail-rate",
      "0.05",
      "--drop-rate",
      "0.1",
      "--corrupt-rate",
      ".02",
      "--ack-delay-ms",
      "30",
      "--status-hz",
      "50",
      "--watchdog-ms",
      "800",
      "--config",
      "x.yaml",
      "--baud",
      "115200",
      "--freeze-rate",
      "0",
      "--stall-rate",
      "1",
      "--reboot-rate",
      "0.5",
    ]);
    expect(parsed).toEqual({
      kind: "options",
      options: {
        link: "tcp",
        port: 0,
        seed: 42,
        effectsLog: "/tmp/e.jsonl",
        motionTime: { kind: "lognormal", medianMs: 150, sigma: 0.5 },
        failRate: 0.05,
        dropRate: 0.1,
        corruptRate: 0.02,
        freezeRate: 0,
        stallRate: 1,
        rebootRate: 0.5,
        ackDelayMs: 30,
        statusHz: 50,
        watchdogMs: 800,
        config: "x.yaml",
        baud: 115200,
      },
    });
  });

  it("parses --late-reply-rate and --late-reply-ms, and leaves them out when not given", () => {
    expect(parseSimArgs(["--late-reply-rate", "0.2", "--late-reply-ms", "300"])).toMatchObject({
      kind: "options",
      options: { lateReplyRate: 0.2, lateReplyMs: 300 },
    });
    const plain = parseSimArgs([]);
    expect(plain.kind === "options" && "lateReplyRate" in plain.options).toBe(false);
  });

  it("defaults to 100 Hz status, a 1 s watchdog, profile motion times, and TCP when a port is given", () => {
    const parsed = parseSimArgs(["--port", "0"]);
    expect(parsed).toMatchObject({
      kind: "options",
      options: { link: "tcp", statusHz: 100, watchdogMs: 1000, motionTime: { kind: "profile" }, failRate: 0 },
    });
    expect(parseSimArgs(["--motion-time", "fixed:300"])).toMatchObject({
      options: { motionTime: { kind: "fixed", ms: 300 } },
    });
  });

  it.each([
    [["--bogus"], /bogus/],
    [["--link", "usb"], /--link/],
    [["--fail-rate", "1.5"], /--fail-rate/],
    [["--drop-rate", "-0.1"], /--drop-rate/],
    [["--late-reply-rate", "2"], /--late-reply-rate/],
    [["--late-reply-ms", "soon"], /--late-reply-ms/],
    [["--port", "70000"], /--port/],
    [["--motion-time", "fixed"], /--motion-time/],
    [["--motion-time", "lognormal:0:1"], /--motion-time/],
    [["--link", "pty", "--port", "1234"], /--port/],
    [["--status-hz", "abc"], /--status-hz/],
    [["stray"], /stray|positional/i],
  ])("refuses %j with a message naming the flag", (argv, pattern) => {
    const parsed = parseSimArgs(argv);
    expect(parsed.kind).toBe("error");
    expect(parsed.kind === "error" && parsed.message).toMatch(pattern);
  });

  it("recognises --help", () => {
    expect(parseSimArgs(["--help"])).toEqual({ kind: "help" });
  });
});
