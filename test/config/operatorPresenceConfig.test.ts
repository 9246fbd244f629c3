import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_CONFIG_PATH, parseConfig } from "../../src/config/loadConfig.js";

function withPresence(presence: unknown): unknown {
  const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, Record<string, unknown>>;
  return { ...raw, arm: { ...raw.arm, urdf: join(dirname(DEFAULT_CONFIG_PATH), String(raw.arm?.urdf)) }, ...(presence === undefined ? {} : { operator_presence: presence }) };
}

describe("config operator_presence", () => {
  it("is off unless required: absent or required: false leaves the bridge as it was", () => {
    expect(parseConfig(withPresence(undefined)).operatorPresence).toBeUndefined();
    expect(parseConfig(withPresence({ required: false, timeout_ms: 1000 })).operatorPresence).toBeUndefined();
  });

  it("required: true with timeout_ms (default 2000)", () => {
    expect(parseConfig(withPresence({ required: true, timeout_ms: 750 })).operatorPresence).toEqual({ timeoutMs: 750 });
    expect(parseConfig(withPresence({ required: true })).operatorPresence).toEqual({ timeoutMs: 2000 });
  });

  it.each([
    ["a misspelt key", { required: true, timeout: 500 }],
    ["no required", { timeout_ms: 500 }],
    ["a timeout too short to heartbeat within", { required: true, timeout_ms: 100 }],
    ["a fractional timeout", { required: true, timeout_ms: 500.5 }],
  ])("refuses %s with ARMB_ERR_CONFIG_INVALID naming operator_presence", (_what, presence) => {
    expect(() => parseConfig(withPresence(presence))).toThrow(expect.objectContaining({ code: "ARMB_ERR_CONFIG_INVALID", message: expect.stringContaining("operator_presence") as unknown }));
  });
});
