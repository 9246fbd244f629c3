import { describe, expect, it } from "vitest";
import { ERROR_CODES, type ErrorCode } from "../../../src/errors.js";
import { HTTP_STATUS_BY_CODE, httpStatusFor } from "../../../src/surfaces/http/httpStatusFor.js";

describe("httpStatusFor", () => {
  it("has a row for every error code (a new code needs its status decided)", () => {
    const missing = Object.keys(ERROR_CODES).filter((c) => !(c in HTTP_STATUS_BY_CODE));
    expect(missing).toEqual([]);
  });

  it.each([
    ["ARMB_ERR_HTTP_UNAUTHORIZED", 401],
    ["ARMB_ERR_HTTP_BAD_REQUEST", 400],
    ["ARMB_ERR_HTTP_NOT_FOUND", 404],
    ["ARMB_ERR_HTTP_BODY_TOO_LARGE", 413],
    ["ARMB_ERR_ACTION_NOT_FOUND", 404],
    ["ARMB_ERR_ACTION_NOT_UNKNOWN", 409],
    ["ARMB_ERR_INTERNAL", 500],
  ] as [ErrorCode, number][])("maps %s to %i", (code, status) => {
    expect(httpStatusFor(code)).toBe(status);
  });
});
