import { readFileSync } from "node:fs";
import { McapStreamReader, type TypedMcapRecord } from "@mcap/core";
import { decompress } from "lz4js";

/** One message of a recording, its JSON parsed. */
export interface RecordedMessage {
  readonly topic: string;
  readonly schemaName: string;
  /** Log time, epoch ms. */
  readonly ms: number;
  readonly data: Record<string, unknown>;
}

export interface Recording {
  readonly path: string;
  readonly messages: readonly RecordedMessage[];
  /** The file's `armbridge` metadata (arm, session, part, …). */
  readonly metadata: Readonly<Record<string, string>>;
  /** False for a file cut short (a killed serve): every whole chunk was still read. */
  readonly complete: boolean;
}

const decoder = new TextDecoder();

/**
 * Reads a recording front to back, as a stream: a file whose writer was
 * killed has no summary to seek by, yet every chunk it finished is whole
 * and read; what follows the last whole record is left, and `complete`
 * says so. Messages come in log-time order.
 */
export function readRecording(path: string): Recording {
  const reader = new McapStreamReader({
    decompressHandlers: { lz4: (buffer, size) => Uint8Array.from(decompress(buffer, Number(size))) },
  });
  reader.append(readFileSync(path));
  const channels = new Map<number, { topic: string; schemaId: number }>();
  const schemas = new Map<number, string>();
  const messages: RecordedMessage[] = [];
  const metadata: Record<string, string> = {};
  let complete = false;
  for (;;) {
    let record: TypedMcapRecord | undefined;
    try {
      record = reader.nextRecord();
    } catch {
      // A torn record at the end of a killed file: everything before it stands.
      break;
    }
    if (!record) break;
    if (record.type === "Schema") schemas.set(record.id, record.name);
    else if (record.type === "Channel") channels.set(record.id, { topic: record.topic, schemaId: record.schemaId });
    else if (record.type === "Metadata" && record.name === "armbridge")
      Object.assign(metadata, Object.fromEntries(record.metadata));
    else if (record.type === "Footer") complete = true;
    else if (record.type === "Message") {
      const channel = channels.get(record.channelId);
      if (!channel) continue;
      messages.push({
        topic: channel.topic,
        schemaName: schemas.get(channel.schemaId) ?? "",
        ms: Number(record.logTime) / 1e6,
        data: JSON.parse(decoder.decode(record.data)) as Record<string, unknown>,
      });
    }
  }
  messages.sort((a, b) => a.ms - b.ms);
  return { path, messages, metadata, complete };
}
