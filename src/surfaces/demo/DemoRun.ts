import type { TransportChoice } from "../../bridge/createTransport.js";
import type { Logger } from "../../observability/logger.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import type { ProcessScope } from "../runtime/ProcessScope.js";
import type { Serving } from "../runtime/startServing.js";
import type { DemoBus } from "./demoBus.js";

/** What `armbridge demo` was asked, defaults filled in. */
export interface DemoOptions {
  readonly exitAfterSession: boolean;
  readonly session: string;
  readonly instruction: string;
  readonly model: string | undefined;
  readonly baseUrl: string | undefined;
  readonly seed: number;
  readonly link: "pty" | "tcp";
  readonly stallJoints: readonly string[];
  readonly host: string;
  readonly port: number;
  readonly token: string;
  readonly dataDir: string;
  readonly config: string | undefined;
  /** An arm given on the command line: no simulator is started. */
  readonly transport: TransportChoice | undefined;
  /** --bus: the simulator is a servo bus, and config, session and stall joint default to the bus arm's. */
  readonly bus: DemoBus | undefined;
}

/** One demo process: what it was asked, where it speaks and logs, what ends it and what it opened. */
export interface DemoRun {
  readonly options: DemoOptions;
  readonly io: CliIo;
  /** A line of the narrative on stdout, while anyone reads it. */
  readonly say: (line?: string) => void;
  /** A path as the user can type it from here. */
  readonly shown: (path: string) => string;
  readonly logger: Logger;
  /** Aborted by a stop signal, a reader gone from stdout, or the simulator ending on its own. */
  readonly shutdown: AbortController;
  readonly scope: ProcessScope;
  exitCode: number;
}

/** The console link the demo prints, with its --token. */
export const consoleUrlOf = (serving: Serving, options: DemoOptions): string =>
  `${serving.http.url}/console#token=${options.token}`;
