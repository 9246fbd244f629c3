import { subnegotiation, TELNET_OPTION } from "./telnet.js";

/**
 * RFC 2217 (Telnet Com Port Control Option) commands armbridge uses. A
 * client sends `IAC SB COM-PORT-OPTION <command> <value> IAC SE`; the access
 * server answers with the same command number plus 100 and the value now in
 * effect. SET-BAUDRATE's value is four octets in network byte order, and 0
 * asks for the current rate without changing it (RFC 2217, "SET-BAUDRATE").
 * SIGNATURE (0) with no text asks the server to name itself.
 */
export const COM_PORT_COMMAND = {
  signature: 0,
  setBaudRate: 1,
} as const;

/** Server → client: the client's command number + 100. */
export const COM_PORT_REPLY_OFFSET = 100;

export function encodeBaud(baud: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, baud >>> 0, false);
  return b;
}

export function decodeBaud(value: Uint8Array): number | undefined {
  if (value.length !== 4) return undefined;
  return new DataView(value.buffer, value.byteOffset, 4).getUint32(0, false);
}

/** Client → server: set the port's baud rate (0 = only ask). */
export function setBaudRateCommand(baud: number): Uint8Array {
  return subnegotiation(TELNET_OPTION.comPort, Uint8Array.from([COM_PORT_COMMAND.setBaudRate, ...encodeBaud(baud)]));
}

/** Server → client: the baud rate now in effect. */
export function baudRateReply(baud: number): Uint8Array {
  return subnegotiation(
    TELNET_OPTION.comPort,
    Uint8Array.from([COM_PORT_COMMAND.setBaudRate + COM_PORT_REPLY_OFFSET, ...encodeBaud(baud)]),
  );
}

/** Server → client: its signature text. */
export function signatureReply(text: string): Uint8Array {
  return subnegotiation(
    TELNET_OPTION.comPort,
    Uint8Array.from([COM_PORT_COMMAND.signature + COM_PORT_REPLY_OFFSET, ...new TextEncoder().encode(text)]),
  );
}
