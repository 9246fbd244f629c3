import { ArmbridgeError } from "../../../errors.js";
import type { ByteLink } from "../ByteLink.js";
import { LinkListeners } from "../LinkListeners.js";
import { TcpLink } from "../TcpLink.js";
import {
  COM_PORT_COMMAND,
  COM_PORT_REPLY_OFFSET,
  decodeBaud,
  setBaudRateCommand,
} from "../../../protocol/rfc2217/comPort.js";
import {
  DO,
  DONT,
  escapeTelnetData,
  negotiation,
  TelnetDecoder,
  TELNET_OPTION,
  WILL,
  WONT,
  type TelnetEvent,
} from "../../../protocol/rfc2217/telnet.js";

/** How long the server gets to agree to COM-PORT-OPTION and to answer a SET-BAUDRATE. */
const ANSWER_MS = 2000;

/**
 * A serial port behind a Telnet server that speaks RFC 2217
 * (`rfc2217://HOST:PORT`): ser2net in telnet mode with `remctl`, or
 * firmware-sim's `--link rfc2217`. Unlike a raw `tcp://` link (ser2net raw
 * mode: the port's baud is fixed in the server's config), the host sets the
 * port's baud rate over the connection — what a bus scan needs.
 *
 * Opening negotiates BINARY both ways and COM-PORT-OPTION (RFC 2217 §2:
 * the client sends WILL COM-PORT-OPTION, the server answers DO), then sets
 * `baudRate`; a server that refuses is ARMB_ERR_LINK_OPEN.
 */
export class Rfc2217Link implements ByteLink {
  readonly url: string;
  readonly #tcp: TcpLink;
  readonly #listeners = new LinkListeners();
  #baudRate: number;
  #decoder = new TelnetDecoder();
  #answered = new Set<string>();
  #waiters = new Set<(e: TelnetEvent) => void>();
  #unsubscribe: (() => void)[] = [];

  constructor(url: string, host: string, port: number, options: { readonly baudRate: number }) {
    this.url = url;
    this.#tcp = new TcpLink(url, host, port);
    this.#baudRate = options.baudRate;
  }

  get isOpen(): boolean {
    return this.#tcp.isOpen;
  }

  /** The baud rate the server last confirmed (or the one asked for, before opening). */
  get baudRate(): number {
    return this.#baudRate;
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (this.#tcp.isOpen) return;
    this.#decoder = new TelnetDecoder();
    // The server's DO/WILL that acknowledge our own requests need no answer (RFC 1143: no negotiation loops).
    this.#answered = new Set([
      `${DO}:${TELNET_OPTION.binary}`,
      `${WILL}:${TELNET_OPTION.binary}`,
      `${DO}:${TELNET_OPTION.comPort}`,
    ]);
    this.#unsubscribe = [
      this.#tcp.onData((chunk) => this.#receive(chunk)),
      this.#tcp.onClose((error) => {
        for (const u of this.#unsubscribe) u();
        this.#unsubscribe = [];
        this.#listeners.emitClose(error);
      }),
    ];
    try {
      await this.#tcp.open(signal);
      const agreed = this.#await(
        (e) => e.kind === "negotiation" && e.option === TELNET_OPTION.comPort && (e.verb === DO || e.verb === DONT),
        signal,
      );
      this.#tcp.write(
        Uint8Array.from([
          ...negotiation(WILL, TELNET_OPTION.binary),
          ...negotiation(DO, TELNET_OPTION.binary),
          ...negotiation(WILL, TELNET_OPTION.comPort),
        ]),
      );
      const answer = await agreed;
      if (answer.kind !== "negotiation" || answer.verb !== DO) {
        throw new ArmbridgeError("ARMB_ERR_LINK_OPEN", {
          link: this.url,
          reason: "the server refused RFC 2217 (COM-PORT-OPTION); a raw ser2net port is tcp://, not rfc2217://",
        });
      }
      await this.setBaudRate(this.#baudRate, signal);
    } catch (error) {
      await this.#tcp.close();
      if (error instanceof ArmbridgeError) throw error;
      throw new ArmbridgeError(
        "ARMB_ERR_LINK_OPEN",
        { link: this.url, reason: (error as Error).message },
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {
    await this.#tcp.close();
  }

  write(bytes: Uint8Array): void {
    this.#tcp.write(escapeTelnetData(bytes));
  }

  onData(listener: (chunk: Uint8Array) => void): () => void {
    return this.#listeners.onData(listener);
  }

  onClose(listener: (error: Error | undefined) => void): () => void {
    return this.#listeners.onClose(listener);
  }

  /** Asks the server to run the port at `baud`; resolves once it confirmed that rate, else ARMB_ERR_LINK_BAUD. */
  async setBaudRate(baud: number, signal?: AbortSignal): Promise<void> {
    const reply = this.#await(
      (e) =>
        e.kind === "subnegotiation" &&
        e.option === TELNET_OPTION.comPort &&
        e.payload[0] === COM_PORT_COMMAND.setBaudRate + COM_PORT_REPLY_OFFSET,
      signal,
    );
    this.#tcp.write(setBaudRateCommand(baud));
    const e = await reply.catch((error: unknown) => {
      throw new ArmbridgeError(
        "ARMB_ERR_LINK_BAUD",
        { link: this.url, baud, reason: (error as Error).message },
        { cause: error },
      );
    });
    const now = e.kind === "subnegotiation" ? decodeBaud(e.payload.subarray(1)) : undefined;
    if (now !== baud)
      throw new ArmbridgeError("ARMB_ERR_LINK_BAUD", {
        link: this.url,
        baud,
        reason: `the server runs the port at ${now ?? "an unreadable rate"}`,
      });
    this.#baudRate = baud;
  }

  #receive(chunk: Uint8Array): void {
    for (const e of this.#decoder.push(chunk)) {
      if (e.kind === "data") this.#listeners.emitData(e.bytes);
      else if (e.kind === "negotiation") this.#negotiate(e.verb, e.option);
      for (const w of [...this.#waiters]) w(e);
    }
  }

  /** Answers the server's own requests once per option: BINARY both ways and SGA from it; nothing else. */
  #negotiate(verb: number, option: number): void {
    const key = `${verb}:${option}`;
    if (this.#answered.has(key)) return;
    this.#answered.add(key);
    if (verb === DO)
      this.#tcp.write(
        negotiation(option === TELNET_OPTION.binary || option === TELNET_OPTION.comPort ? WILL : WONT, option),
      );
    else if (verb === WILL)
      this.#tcp.write(
        negotiation(option === TELNET_OPTION.binary || option === TELNET_OPTION.suppressGoAhead ? DO : DONT, option),
      );
  }

  #await(match: (e: TelnetEvent) => boolean, signal?: AbortSignal): Promise<TelnetEvent> {
    return new Promise<TelnetEvent>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        signal?.removeEventListener("abort", onAbort);
        offClose();
      };
      const offClose = this.#tcp.onClose(() => {
        done();
        reject(new Error("the server closed the connection (is another host connected to it?)"));
      });
      const waiter = (e: TelnetEvent): void => {
        if (!match(e)) return;
        done();
        resolve(e);
      };
      const onAbort = (): void => {
        done();
        reject(new Error("aborted"));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no answer from the server within ${ANSWER_MS} ms`));
      }, ANSWER_MS);
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
