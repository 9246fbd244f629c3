import type { ErrorEntry } from "./ErrorEntry.js";

/** The surfaces: HTTP, attached clients, MCP, the CLI and the Gemini agent. */
export const SURFACE_ERRORS = {
  // surfaces
  ARMB_ERR_HTTP_UNAUTHORIZED: { httpStatus: 401, message: "Missing or wrong bearer token" },
  // a valid credential, but not the operator's: RFC 9110 §15.5.4 403 Forbidden
  ARMB_ERR_HTTP_OPERATOR_ONLY: {
    httpStatus: 403,
    message:
      "{method} {url} is the operator's: it needs the operator token (the one in the console link serve printed), not the API token an agent or MCP client holds",
    docs: "The answer to `POST /v1/presence` and approval decisions made with the API token",
  },
  // the connection cap: answered, never dropped, so no client reuses the socket
  ARMB_ERR_HTTP_BUSY: {
    httpStatus: 503,
    message: "The server already holds {limit} connections; retry in a moment on a new connection",
    docs: "Sent with `Retry-After` and `Connection: close` instead of dropping the connection (HALT is still served)",
  },
  ARMB_ERR_HTTP_BAD_REQUEST: {
    httpStatus: 400,
    message: "Bad request: {issues}",
    docs: "A field or value that is not one of the valid ones is named with them; when it is the request's only such problem, the error's `choices` list them",
  },
  ARMB_ERR_AXIS_UNKNOWN: {
    httpStatus: 400,
    message: "{where}: no axis named {names}; the arm's axes: {list}",
    docs: "The error's `choices` are the arm's axes",
  },
  ARMB_ERR_HTTP_NOT_FOUND: { httpStatus: 404, message: "No route {method} {url}" },
  ARMB_ERR_HTTP_BODY_TOO_LARGE: { httpStatus: 413, message: "Request body is larger than {limit} bytes" },
  ARMB_ERR_HTTP_UNREACHABLE: {
    httpStatus: 502,
    message: "Cannot reach armbridge at {url}: {reason}. Is `armbridge serve` running there?",
  },
  // raised on the client's side: the answer came, but not in the shape its route declares
  ARMB_ERR_HTTP_BAD_ANSWER: {
    httpStatus: 502,
    message:
      "{method} {path} answered {status} with a body that is not the API's contract ({what}); is the server an armbridge of another version?",
    docs: "Raised by the client (`ArmbridgeClient`), which parses every answer with its route's schema",
  },
  // the stream cap: another stream may be admitted once one closes
  ARMB_ERR_HTTP_TOO_MANY_STREAMS: {
    httpStatus: 503,
    message:
      "{limit} event streams are already open; close one (another console tab?) or raise serve --max-event-streams",
  },
  // RFC 9110 §15.5.20 421 Misdirected Request: this server will not answer for that authority
  ARMB_ERR_HTTP_HOST_NOT_ALLOWED: {
    httpStatus: 421,
    message:
      "Host {host} is not a name this server answers to (allowed: {allowed}); to reach it by that name, start serve with --allow-host NAME",
  },
  ARMB_ERR_HTTP_ORIGIN_NOT_ALLOWED: {
    httpStatus: 403,
    message:
      "Origin {origin} may not call this server: only its own pages (the console) and names given with --allow-host may; other programs send no Origin",
    docs: "On every route (MCP's Streamable HTTP transport requires it)",
  },
  ARMB_ERR_HTTP_PORT_IN_USE: {
    httpStatus: 500,
    message:
      "Cannot listen on {address}: the port is in use (another armbridge?); choose a free one, e.g. --http 127.0.0.1:0 for any free port",
  },
  ARMB_ERR_HTTP_LISTEN: { httpStatus: 500, message: "Cannot listen on {address}: {reason}" },
  ARMB_ERR_HTTP_STARTING: {
    httpStatus: 503,
    message: "The bridge is still starting (opening the arm link, reconciling the ledger); retry shortly",
  },
  // re-attaching to a call id that never ran a motion
  ARMB_ERR_CALL_NOT_FOUND: {
    httpStatus: 404,
    message:
      "No motion runs or was recorded under call id {callId}: there is nothing to re-attach to (reads and halts are never recorded; send those again)",
  },
  // the client side of attaching: the bridge went away, or is too old for it
  ARMB_ERR_BRIDGE_LOST: {
    httpStatus: 502,
    message:
      "Lost armbridge serve at {url} ({reason}) while waiting for {what}; the calls it took go on there and are in its ledger. Re-attach by sending the same call ids again (or GET /v1/calls/ID)",
  },
  ARMB_ERR_BRIDGE_INCOMPATIBLE: {
    httpStatus: 502,
    message: "armbridge serve at {url} cannot take attached clients: {reason}",
  },
  // the session cap: another may be admitted once a call ends
  ARMB_ERR_MCP_TOO_MANY_SESSIONS: {
    httpStatus: 503,
    message:
      "{limit} MCP sessions are already open on this bridge, each with a call under way; close one, or retry when a call ends",
  },
  ARMB_ERR_CLI_USAGE: { httpStatus: 400, message: "{message}" },
  ARMB_ERR_GEMINI_NO_KEY: { httpStatus: 500, message: "GEMINI_API_KEY is not set; set it, or use --model replay:FILE" },
  ARMB_ERR_GEMINI_REPLAY: { httpStatus: 500, message: "Replay file {path} is invalid: {reason}" },
  ARMB_ERR_GEMINI_API: { httpStatus: 502, message: "The Gemini API call failed: {reason}" },
  ARMB_ERR_INTERNAL: { httpStatus: 500, message: "Internal error: {reason}" },
} as const satisfies Readonly<Record<`ARMB_ERR_${string}`, ErrorEntry>>;
