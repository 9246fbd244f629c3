import { createServer, type Socket } from "node:net";
import type { Logger } from "pino";
import { baudRateReply, COM_PORT_COMMAND, decodeBaud, signatureReply } from "../../src/protocol/rfc2217/comPort.js";
import {
  DO,
  DONT,
  escapeTelnetData,
  negotiation,
  TelnetDecoder,
  TELNET_OPTION,
  WILL,
  WONT,
} from "../../src/protocol/rfc2217/telnet.js";
import type { ByteStreamEndpoint, DeviceLink } from "./DeviceLink.js";
import { admitOneHost } from "./admitOneHost.js";
import { interruptibleListener } from "./interruptibleListener.js";
import { listenOnLoopback } from "./listenOnLoopback.js";

/** What the simulator calls itself when a client asks for the access server's signature (RFC 2217 SIGNATURE). */
export const SIM_SIGNATURE = "armbridge-sim";

/**
 * The simulated device behind an RFC 2217 access server on 127.0.0.1, as
 * ser2net serves a serial port in telnet mode with `remctl`: data bytes with
 * 0xFF doubled, and COM-PORT-OPTION commands beside them. SET-BAUDRATE sets
 * the simulated line's baud (`ByteStreamEndpoint.setLineBaud`): a servo bus
 * then hears only the servos set to that rate. One host at a time.
 *
 * Negotiation: BINARY, SUPPRESS-GO-AHEAD and COM-PORT-OPTION are accepted
 * (what pyserial's rfc2217 client asks for); every other option is refused.
 */
export async function startRfc2217Link(options: {
  readonly port: number;
  readonly endpoint: ByteStreamEndpoint;
  readonly logger: Logger;
}): Promise<DeviceLink> {
  const { endpoint, logger } = options;
  let current: Socket | undefined;
  const refuse = (socket: Socket): void => {
    logger.warn({ remote: socket.remotePort }, "second host refused: one host at a time");
    socket.destroy();
  };
  const server = createServer(
    admitOneHost((socket) => {
      current = socket;
      socket.setNoDelay(true);
      logger.info({ remote: socket.remotePort }, "host connected (rfc2217)");
      const decoder = new TelnetDecoder();
      endpoint.attach((bytes) => {
        if (!socket.destroyed) socket.write(escapeTelnetData(bytes));
      });
      socket.on("data", (chunk: Buffer) => {
        for (const e of decoder.push(chunk)) {
          switch (e.kind) {
            case "data":
              endpoint.receive(e.bytes);
              break;
            case "negotiation": {
              const accepted =
                e.option === TELNET_OPTION.binary ||
                e.option === TELNET_OPTION.suppressGoAhead ||
                e.option === TELNET_OPTION.comPort;
              if (e.verb === WILL) socket.write(negotiation(accepted ? DO : DONT, e.option));
              else if (e.verb === DO)
                socket.write(negotiation(accepted && e.option !== TELNET_OPTION.comPort ? WILL : WONT, e.option));
              break;
            }
            case "subnegotiation": {
              if (e.option !== TELNET_OPTION.comPort) break;
              const command = e.payload[0];
              if (command === COM_PORT_COMMAND.setBaudRate) {
                const asked = decodeBaud(e.payload.subarray(1)) ?? 0;
                const now = asked === 0 ? (endpoint.lineBaud?.() ?? 0) : (endpoint.setLineBaud?.(asked) ?? asked);
                logger.info({ asked, now }, "line baud set by the host (rfc2217)");
                socket.write(baudRateReply(now));
              } else if (command === COM_PORT_COMMAND.signature && e.payload.length === 1) {
                socket.write(signatureReply(SIM_SIGNATURE));
              }
              // Data size, parity, stop bits, control lines: a simulated line is 8N1 and has no modem lines; unanswered.
              break;
            }
          }
        }
      });
      socket.on("error", (error) => logger.info({ err: error.message }, "host socket error"));
      socket.on("close", () => {
        if (current === socket) {
          current = undefined;
          endpoint.detach();
          logger.info("host disconnected");
        }
      });
    }, refuse),
  );
  const port = await listenOnLoopback(server, options.port);
  return {
    url: `rfc2217://127.0.0.1:${port}`,
    ...interruptibleListener(server, port, () => current, logger),
  };
}
