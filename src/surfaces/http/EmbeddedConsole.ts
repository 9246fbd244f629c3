import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import type { Logger } from "../../observability/logger.js";
import { generateToken } from "./bearerToken.js";
import { bindHttpPort, type BoundHttpPort } from "./bindHttpPort.js";
import { serveHttpOnPort, type RunningHttpServer } from "./startHttpServer.js";

/** Where an embedded mode serves its console unless told: loopback, any free port. */
export const EMBEDDED_CONSOLE_DEFAULT = "127.0.0.1:0";

/**
 * The operator surface of a mode that runs its bridge in this process
 * (`agent` and `mcp` without `--bridge`): the same HTTP API and console as
 * serve, on the same bridge, so that no mode moves an arm without a HALT
 * button, an answer to approval requests and a place to confirm unknowns.
 * The port is bound before the bridge starts (a taken port is said before
 * the arm is touched), as serve does.
 */
export class EmbeddedConsole {
  /** The API token (scripts, an MCP client over /mcp). */
  readonly token: string;
  /** The operator's token, which the console link carries: presence and approval decisions need it. */
  readonly operatorToken: string;
  readonly #port: BoundHttpPort;
  #server: RunningHttpServer | undefined;

  private constructor(port: BoundHttpPort, token: string, operatorToken: string) {
    this.#port = port;
    this.token = token;
    this.operatorToken = operatorToken;
  }

  /** Binds `host:port` (ARMB_ERR_HTTP_PORT_IN_USE if taken); `token` undefined makes a new one; the operator token is always new. */
  static async bind(options: {
    readonly host: string;
    readonly port: number;
    readonly token?: string | undefined;
  }): Promise<EmbeddedConsole> {
    const port = await bindHttpPort({ host: options.host, port: options.port });
    return new EmbeddedConsole(port, options.token ?? generateToken(), generateToken());
  }

  /** `http://HOST:PORT`. */
  get url(): string {
    return this.#port.url;
  }

  /** The console's address with the operator's token, for people to open. */
  get consoleUrl(): string {
    return `${this.#port.url}/console#token=${encodeURIComponent(this.operatorToken)}`;
  }

  /** Starts answering on the bound port with the bridge's API and console; returns the warnings to print (a wide bind, a short token). */
  async serve(bridge: HostedBridgePort, logger: Logger): Promise<readonly string[]> {
    this.#server = await serveHttpOnPort(bridge, this.#port, {
      token: this.token,
      operatorToken: this.operatorToken,
      logger,
    });
    return this.#server.security.warnings.map((w) => w.message);
  }

  async close(): Promise<void> {
    await (this.#server ?? this.#port).close();
  }
}
