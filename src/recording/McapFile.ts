import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { McapWriter, type IWritable } from "@mcap/core";
import { compress } from "lz4js";
import type { RecordingChannel } from "./recordingChannels.js";

/**
 * Bytes handed straight to the kernel: a chunk McapWriter finishes is in the
 * file the moment `write` returns, so a SIGKILL after it loses only the chunk
 * being filled (the writer holds that one in memory until it is full).
 */
class FileSink implements IWritable {
  readonly #fd: number;
  #position = 0n;

  constructor(fd: number) {
    this.#fd = fd;
  }

  write(buffer: Uint8Array): Promise<void> {
    let done = 0;
    while (done < buffer.byteLength) done += writeSync(this.#fd, buffer, done, buffer.byteLength - done);
    this.#position += BigInt(buffer.byteLength);
    return Promise.resolve();
  }

  position(): bigint {
    return this.#position;
  }
}

/** MCAP's `lz4` chunk compression is the LZ4 frame format, which lz4js writes (mcap spec: "Chunk" compression). */
function lz4Chunk(data: Uint8Array): { compression: string; compressedData: Uint8Array } {
  const out = compress(data);
  return { compression: "lz4", compressedData: out instanceof Uint8Array ? out : Uint8Array.from(out) };
}

const encoder = new TextEncoder();

/**
 * One MCAP file being written: chunked, lz4-compressed, indexed, with a
 * summary when it is ended. Calls are queued one after another, as
 * McapWriter requires (a call made before the last one finished would
 * corrupt the file); `write` never waits for the disk.
 */
export class McapFile {
  readonly path: string;
  readonly #fd: number;
  readonly #sink: FileSink;
  readonly #writer: McapWriter;
  readonly #channels = new Map<string, Promise<number>>();
  #tail: Promise<unknown>;
  #sequence = 0;
  #ended = false;

  constructor(path: string, options: { readonly chunkBytes: number; readonly metadata: Record<string, string> }) {
    this.path = path;
    this.#fd = openSync(path, "wx");
    this.#sink = new FileSink(this.#fd);
    this.#writer = new McapWriter({ writable: this.#sink, chunkSize: options.chunkBytes, compressChunk: lz4Chunk });
    this.#tail = this.#writer
      .start({ profile: "", library: "armbridge" })
      .then(() => this.#writer.addMetadata({ name: "armbridge", metadata: new Map(Object.entries(options.metadata)) }));
  }

  /** Bytes on disk so far (chunks finished, plus the header). */
  get bytes(): number {
    return Number(this.#sink.position());
  }

  write(channel: RecordingChannel, timeMs: number, message: object): void {
    if (this.#ended) return;
    const id = this.#channelId(channel);
    const data = encoder.encode(JSON.stringify(message));
    const time = BigInt(Math.round(timeMs * 1e6));
    const sequence = this.#sequence++;
    this.#tail = this.#tail.then(async () =>
      this.#writer.addMessage({ channelId: await id, sequence, logTime: time, publishTime: time, data }),
    );
  }

  /** The last chunk, the indexes and the summary; the file is complete when this resolves. */
  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    try {
      await this.#tail;
      await this.#writer.end();
      fsyncSync(this.#fd);
    } finally {
      closeSync(this.#fd);
    }
  }

  /** Settles once every write made so far is handed to the writer (tests, rotation). */
  async drain(): Promise<void> {
    await this.#tail;
  }

  #channelId(channel: RecordingChannel): Promise<number> {
    let id = this.#channels.get(channel.topic);
    if (id === undefined) {
      const registered = this.#tail.then(async () => {
        const schemaId = await this.#writer.registerSchema({
          name: channel.schemaName,
          encoding: "jsonschema",
          data: encoder.encode(JSON.stringify(channel.schema)),
        });
        return this.#writer.registerChannel({
          topic: channel.topic,
          schemaId,
          messageEncoding: "json",
          metadata: new Map(),
        });
      });
      this.#tail = registered;
      id = registered;
      this.#channels.set(channel.topic, id);
    }
    return id;
  }
}
