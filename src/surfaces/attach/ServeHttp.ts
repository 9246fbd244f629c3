import { ArmbridgeClient } from "../../wire/client/ArmbridgeClient.js";
import { nodeFetch, unreachable } from "../client/nodeFetch.js";

/**
 * What the remote bridge (RemoteBridge, RemoteExecutor, RemoteEvents) asks
 * of its client: serve's URL, route calls, the event stream and its check against the wire contract. Nothing else
 * of the client is relied on, so another object with these members can
 * stand in for it.
 */
export type ServeHttp = Pick<ArmbridgeClient, "url" | "call" | "events" | "checkEvent">;

/** A client of a running serve and the connection pool under it; close the pool when done. */
export interface ServeConnection {
  readonly client: ArmbridgeClient;
  close(): Promise<void>;
}

/**
 * A client for `agent --bridge` and `mcp --bridge`, which may wait minutes
 * for one answer: Node's fetch without its answer timeouts (nodeFetch), and
 * a failure to reach serve reported as ARMB_ERR_HTTP_UNREACHABLE.
 */
export function connectToServe(url: string, token: string): ServeConnection {
  const node = nodeFetch();
  return {
    client: new ArmbridgeClient({ url, token, fetch: node.fetch, connectionError: unreachable }),
    close: () => node.close(),
  };
}
