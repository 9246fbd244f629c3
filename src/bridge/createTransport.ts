import type { ArmConfig } from "../config/ArmConfig.js";
import type { Logger } from "../observability/logger.js";
import { createSerialTransport } from "../transport/serial/index.js";
import type { Transport } from "../transport/Transport.js";

/** Which arm to talk to. */
export type TransportChoice =
  /** Firmware over a serial line: a device path (`/dev/ttyACM0`, a socat PTY) or `tcp://HOST:PORT`. */
  | { readonly kind: "serial"; readonly link: string; readonly baudRate?: number | undefined }
  /** ros2_control controllers through rclnodejs, loaded only now. `argv` carries `--ros-args ...`. */
  | { readonly kind: "ros2"; readonly argv?: readonly string[] | undefined; readonly paramsFile?: string | undefined }
  /** A Transport built by the caller (library users, tests). */
  | { readonly kind: "custom"; readonly transport: Transport };

type Ros2Factory = (config: ArmConfig, options: { argv: readonly string[]; paramsFile: string | undefined; logger: Logger }) => Promise<Transport>;
const ROS2_MODULE = "../transport/ros2/index.js";

export async function createTransport(config: ArmConfig, choice: TransportChoice, logger: Logger): Promise<Transport> {
  switch (choice.kind) {
    case "serial":
      return createSerialTransport(config, choice.link, { logger, ...(choice.baudRate === undefined ? {} : { baudRate: choice.baudRate }) });
    case "ros2": {
      // Imported here, not at the top: the ROS path must cost nothing (and
      // need no ROS install) unless it is chosen.
      const ros2 = (await import(ROS2_MODULE)) as { createRos2TransportFromArgs: Ros2Factory };
      return ros2.createRos2TransportFromArgs(config, { argv: choice.argv ?? [], paramsFile: choice.paramsFile, logger });
    }
    case "custom":
      return choice.transport;
  }
}
