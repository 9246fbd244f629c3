import type { Agent, fetch as undiciFetch } from "undici";
import { ArmbridgeError } from "../../errors.js";
import type { FetchLike } from "../../wire/client/ArmbridgeClient.js";

/** A fetch and the connection pool it runs on; close the pool when done. */
export interface NodeFetch {
  readonly fetch: FetchLike;
  close(): Promise<void>;
}

/**
 * Node's fetch for clients of a running serve, which may wait minutes for one
 * answer (a motion awaiting an operator's approval, a slow move). Node's
 * built-in fetch gives up on an answer after 300 s without headers or 300 s
 * without body bytes (undici's `headersTimeout` and `bodyTimeout`); here both
 * are off, and how long to wait is the caller's signal to decide.
 * Connections are kept alive and pooled.
 */
export function nodeFetch(): NodeFetch {
  // undici is loaded on the first request, not at start: a CLI command that answers at once
  // (halt above all) does not pay for it.
  let loaded: Promise<{ dispatcher: Agent; fetch: typeof undiciFetch }> | undefined;
  const load = (): Promise<{ dispatcher: Agent; fetch: typeof undiciFetch }> =>
    (loaded ??= import("undici").then((undici) => ({
      fetch: undici.fetch,
      dispatcher: new undici.Agent({
        headersTimeout: 0,
        bodyTimeout: 0,
        keepAliveTimeout: 10_000,
        connect: { timeout: 10_000 },
      }),
    })));
  return {
    fetch: async (url, init) => {
      const { fetch, dispatcher } = await load();
      // undici's own fetch, so that the dispatcher is honoured; its Response is the same WHATWG shape.
      return await fetch(url, { ...(init as unknown as Parameters<typeof undiciFetch>[1]), dispatcher });
    },
    close: async () => {
      if (loaded) await (await loaded).dispatcher.destroy().catch(() => undefined);
    },
  };
}

/** A failure to reach serve, in the registry's words: ARMB_ERR_HTTP_UNREACHABLE with the socket's reason. */
export function unreachable(error: unknown, url: string): Error {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return new ArmbridgeError(
    "ARMB_ERR_HTTP_UNREACHABLE",
    { url, reason: e.cause?.code ?? e.code ?? e.cause?.message ?? e.message ?? String(error) },
    { cause: error },
  );
}

/** True for an error that says the connection failed (nothing, or not all, of the answer came back): worth re-attaching. */
export function connectionLost(error: unknown): boolean {
  return error instanceof ArmbridgeError && error.code === "ARMB_ERR_HTTP_UNREACHABLE";
}
