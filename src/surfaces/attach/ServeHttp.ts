import type { BridgeHttpClient } from "./BridgeHttpClient.js";

/**
 * What the remote bridge (RemoteBridge, RemoteExecutor, RemoteEvents) asks
 * of its HTTP client: serve's URL, JSON requests, the event stream, close.
 * Nothing else of the client is relied on, so another client with these
 * four members can stand in for it.
 */
export type ServeHttp = Pick<BridgeHttpClient, "url" | "json" | "stream" | "close">;
