import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ArmbridgeError, ERROR_CODES, type ErrorCode } from "../src/errors.js";

describe("error code registry", () => {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];

  it("documents every code in docs/errors.md, and documents no code that does not exist", () => {
    const doc = readFileSync(new URL("../docs/errors.md", import.meta.url), "utf8");
    for (const code of codes) expect(doc, `${code} missing from docs/errors.md`).toContain(`\`${code}\``);
    const documented = [...doc.matchAll(/`(ARMB_ERR_[A-Z0-9_]+)`/g)].map((m) => m[1]);
    for (const d of documented)
      expect(codes, `docs/errors.md documents ${d}, which is not in src/errors.ts`).toContain(d);
  });

  it("uses one prefix and distinct message templates", () => {
    for (const code of codes) expect(code).toMatch(/^ARMB_ERR_[A-Z0-9_]+$/);
    const templates = codes.map((c) => ERROR_CODES[c]);
    expect(new Set(templates).size).toBe(templates.length);
  });

  it("carries structure: code, details, cause and a JSON form", () => {
    const cause = new Error("EACCES");
    const e = new ArmbridgeError(
      "ARMB_ERR_LINK_OPEN",
      { link: "/dev/ttyACM0", reason: "permission denied" },
      { cause },
    );
    expect(e.code).toBe("ARMB_ERR_LINK_OPEN");
    expect(e.message).toContain("/dev/ttyACM0");
    expect(e.toJSON()).toMatchObject({
      code: "ARMB_ERR_LINK_OPEN",
      details: { link: "/dev/ttyACM0" },
      cause: "EACCES",
    });
  });
});
