import { ApiError } from "../src/wire/client/ApiError.js";
import { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";

/**
 * The console's client: the page is served by the bridge it talks to (same
 * origin). The bearer token travels in a header on every call (the event
 * stream too, which is why it is read with fetch and not EventSource): never
 * in a URL. A 401 on any call runs `onRefused`.
 */
export function consoleClient(token: string, onRefused: () => void): ArmbridgeClient {
  return new ArmbridgeClient({ url: "", token, onRefused });
}

/** `CODE: message` for any thrown value, for an error line on the page. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
