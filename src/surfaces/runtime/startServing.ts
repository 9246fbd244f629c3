import { Bridge, type BridgeOptions } from "../../bridge/Bridge.js";
import type { TransportChoice } from "../../bridge/createTransport.js";
import { bindHttpPort } from "../http/bindHttpPort.js";
import { serveHttpOnPort, type HttpAppOptions, type RunningHttpServer } from "../http/startHttpServer.js";
import type { ProcessScope } from "./ProcessScope.js";

/** Where an embedded mode (`agent`, `mcp` without `--bridge`) serves its console unless told: loopback, any free port. */
export const EMBEDDED_CONSOLE_DEFAULT = "127.0.0.1:0";

/** A simulator started for the bridge to drive (the demo's firmware-sim): its link, and how to stop it. */
export interface StartedSim {
  readonly transport: TransportChoice;
  stop(): Promise<void>;
}

export interface ServingOptions {
  /** Where each opened resource goes; closing it closes them last-opened first: HTTP, bridge, simulator. */
  readonly scope: ProcessScope;
  /** Where the API listens, and how it answers. */
  readonly http: Omit<HttpAppOptions, "port" | "bindHost"> & {
    readonly host: string;
    readonly port: number;
    readonly maxConnections?: number | undefined;
  };
  /** Bridge.start's options; the transport may come from `sim` instead. */
  readonly bridge: Omit<BridgeOptions, "transport"> & { readonly transport?: TransportChoice | undefined };
  /** Started when no transport is given, once the port is bound and before the bridge. */
  readonly sim?: (() => Promise<StartedSim>) | undefined;
  /** Looked at after the simulator started: once aborted, the bridge is not started and nothing is served. */
  readonly signal?: AbortSignal | undefined;
  /** Called once the bridge is up, before it is served (start-up warnings, the narrative, a recording); awaited. */
  readonly onBridge?: ((bridge: Bridge) => void | Promise<void>) | undefined;
}

export interface Serving {
  readonly bridge: Bridge;
  readonly http: RunningHttpServer;
}

/**
 * Binds the HTTP port, starts the simulator when asked, starts the bridge and
 * serves the API and console on the port. The port is bound first so that a
 * taken one is said before a simulator starts or the arm is touched (a device
 * handshake, a reconciliation). Undefined when `signal` ended it early; on a
 * failure it throws, and the scope holds what was opened.
 */
export async function startServing(options: ServingOptions): Promise<Serving | undefined> {
  const { scope, http } = options;
  const port = await bindHttpPort({
    host: http.host,
    port: http.port,
    ...(http.maxConnections === undefined ? {} : { maxConnections: http.maxConnections }),
  });
  const dropPort = scope.add("HTTP", () => port.close());
  options.bridge.logger?.child({ component: "startup" }).debug("http port bound");
  let transport = options.bridge.transport;
  if (!transport && options.sim) {
    const sim = await options.sim();
    scope.add("firmware-sim", () => sim.stop());
    transport = sim.transport;
  }
  if (options.signal?.aborted) return undefined;
  if (!transport) throw new Error("startServing: no transport and no simulator");
  const bridge = await Bridge.start({ ...options.bridge, transport });
  scope.add("bridge", () => bridge.close());
  await options.onBridge?.(bridge);
  const { host: _host, port: _port, maxConnections: _max, ...served } = http;
  // serveHttpOnPort closes the port itself when it fails; once it serves, closing the server closes the port.
  dropPort();
  const server = await serveHttpOnPort(bridge, port, served);
  scope.add("HTTP", () => server.close());
  return { bridge, http: server };
}
