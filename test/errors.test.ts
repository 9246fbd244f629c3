import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ARM_ERRORS } from "../src/errorCodes/armErrors.js";
import { CALL_ERRORS } from "../src/errorCodes/callErrors.js";
import { withErrorTable } from "../src/errorsDoc.js";
import { LINK_ERRORS } from "../src/errorCodes/linkErrors.js";
import { SURFACE_ERRORS } from "../src/errorCodes/surfaceErrors.js";
import { ArmbridgeError, ERROR_CODES, ERRORS, type ErrorCode } from "../src/errors.js";

describe("error code registry", () => {
  const codes = Object.keys(ERRORS) as ErrorCode[];
  const page = readFileSync(new URL("../docs/errors.md", import.meta.url), "utf8");

  it("docs/errors.md shows the registry's table as it is now (npm run docs:errors writes it)", () => {
    expect(page, "docs/errors.md has drifted from src/errors.ts: run npm run docs:errors").toBe(withErrorTable(page));
  });

  it("documents every code in docs/errors.md, and documents no code that does not exist", () => {
    for (const code of codes) expect(page, `${code} missing from docs/errors.md`).toContain(`\`${code}\``);
    const documented = [...page.matchAll(/`(ARMB_ERR_[A-Z0-9_]+)`/g)].map((m) => m[1]);
    for (const d of documented)
      expect(codes, `docs/errors.md documents ${d}, which is not in src/errors.ts`).toContain(d);
  });

  it("keeps each code in exactly one of the registry's sections", () => {
    const sections = [CALL_ERRORS, ARM_ERRORS, LINK_ERRORS, SURFACE_ERRORS];
    const total = sections.reduce((n, section) => n + Object.keys(section).length, 0);
    expect(total).toBe(codes.length);
  });

  it("uses one prefix, distinct message templates and an HTTP error status for every code", () => {
    for (const code of codes) expect(code).toMatch(/^ARMB_ERR_[A-Z0-9_]+$/);
    const templates = codes.map((c) => ERRORS[c].message);
    expect(new Set(templates).size).toBe(templates.length);
    for (const code of codes) expect(ERRORS[code].httpStatus, code).toBeGreaterThanOrEqual(400);
    for (const code of codes) expect(ERRORS[code].httpStatus, code).toBeLessThan(600);
    for (const code of codes) expect(ERROR_CODES[code]).toBe(ERRORS[code].message);
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
