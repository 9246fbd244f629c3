import { describe, expect, it } from "vitest";
import type { ErrorCode } from "../../../src/errors.js";
import { httpStatusFor } from "../../../src/surfaces/http/httpStatusFor.js";

describe("httpStatusFor", () => {
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
