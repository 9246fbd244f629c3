import { ERRORS, type ErrorCode } from "../../errors.js";

/** The status a route answers with when it throws an error of this code: the registry's entry decides it. */
export function httpStatusFor(code: ErrorCode): number {
  return ERRORS[code].httpStatus;
}
