import type { ArmbridgeError } from "../../errors.js";
import type { ApiErrorBody } from "../../wire/ApiErrorBody.js";

/** An error as the API sends it: code, message, and the valid choices when the error is about a name that is not one of them. */
export function apiErrorBody(e: ArmbridgeError): ApiErrorBody {
  const choices = e.details.choices;
  return {
    error: { code: e.code, message: e.message, ...(Array.isArray(choices) ? { choices: choices.map(String) } : {}) },
  };
}
