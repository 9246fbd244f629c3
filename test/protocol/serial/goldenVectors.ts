import { readFileSync } from "node:fs";
import type { Message } from "../../../src/protocol/serial/index.js";

export interface ValidVector {
  readonly name: string;
  readonly hex: string;
  readonly payloadHex: string;
  readonly message: Message;
}

export interface InvalidVector {
  readonly name: string;
  readonly hex: string;
  readonly trustedSeq: number | null;
}

interface VectorFile {
  readonly protocolVersion: number;
  readonly crcCheck: { readonly input: string; readonly crc16CcittFalse: string };
  readonly valid: readonly ValidVector[];
  readonly invalid: readonly InvalidVector[];
}

/** test/protocol/serial/vectors.json: the protocol's golden frames, shared by the codec and firmware-sim tests. */
export const VECTORS = JSON.parse(readFileSync(new URL("./vectors.json", import.meta.url), "utf8")) as VectorFile;
