/**
 * The Telnet layer RFC 2217 rides on (RFC 854 commands, RFC 855 option
 * negotiation): the byte 0xFF (IAC) starts a command, so a data byte 0xFF is
 * sent doubled; `IAC SB option … IAC SE` carries a subnegotiation, inside
 * which 0xFF is doubled too. Everything else is data, passed through as is
 * once both sides agreed on BINARY (RFC 856), which a serial line needs.
 */
export const IAC = 0xff;
export const SB = 0xfa;
export const SE = 0xf0;
export const WILL = 0xfb;
export const WONT = 0xfc;
export const DO = 0xfd;
export const DONT = 0xfe;

export const TELNET_OPTION = {
  binary: 0,
  suppressGoAhead: 3,
  /** RFC 2217 COM-PORT-OPTION. */
  comPort: 44,
} as const;

export type NegotiationVerb = typeof WILL | typeof WONT | typeof DO | typeof DONT;

/** What a Telnet byte stream carries, in order. */
export type TelnetEvent =
  | { readonly kind: "data"; readonly bytes: Uint8Array }
  | { readonly kind: "negotiation"; readonly verb: NegotiationVerb; readonly option: number }
  | { readonly kind: "subnegotiation"; readonly option: number; readonly payload: Uint8Array };

/** A subnegotiation longer than this is noise, not a COM-PORT command (the longest carries a signature text). */
const MAX_SUBNEGOTIATION = 1024;

type State = "data" | "iac" | "verb" | "sb_option" | "sb" | "sb_iac";

/**
 * Bytes in any chunking → Telnet events. Never throws: a command byte it does
 * not know after IAC (NOP, GA, …) is dropped, as RFC 854 lets a receiver do.
 */
export class TelnetDecoder {
  #state: State = "data";
  #verb: NegotiationVerb = WILL;
  #option = 0;
  #sb: number[] = [];

  push(chunk: Uint8Array): TelnetEvent[] {
    const events: TelnetEvent[] = [];
    let data: number[] = [];
    const flush = (): void => {
      if (data.length > 0) events.push({ kind: "data", bytes: Uint8Array.from(data) });
      data = [];
    };
    for (const b of chunk) {
      switch (this.#state) {
        case "data":
          if (b === IAC) this.#state = "iac";
          else data.push(b);
          break;
        case "iac":
          if (b === IAC) {
            data.push(IAC);
            this.#state = "data";
          } else if (b === WILL || b === WONT || b === DO || b === DONT) {
            this.#verb = b;
            this.#state = "verb";
          } else if (b === SB) {
            this.#state = "sb_option";
          } else {
            this.#state = "data";
          }
          break;
        case "verb":
          flush();
          events.push({ kind: "negotiation", verb: this.#verb, option: b });
          this.#state = "data";
          break;
        case "sb_option":
          this.#option = b;
          this.#sb = [];
          this.#state = "sb";
          break;
        case "sb":
          if (b === IAC) this.#state = "sb_iac";
          else if (this.#sb.length < MAX_SUBNEGOTIATION) this.#sb.push(b);
          break;
        case "sb_iac":
          if (b === IAC) {
            if (this.#sb.length < MAX_SUBNEGOTIATION) this.#sb.push(IAC);
            this.#state = "sb";
          } else {
            // IAC SE ends it; any other command inside a subnegotiation ends it too (RFC 855 leaves it undefined).
            flush();
            events.push({ kind: "subnegotiation", option: this.#option, payload: Uint8Array.from(this.#sb) });
            this.#sb = [];
            this.#state = "data";
          }
          break;
      }
    }
    flush();
    return events;
  }
}

/** Data bytes as they go on a Telnet stream: every 0xFF doubled. */
export function escapeTelnetData(bytes: Uint8Array): Uint8Array {
  let count = 0;
  for (const b of bytes) if (b === IAC) count++;
  if (count === 0) return bytes;
  const out = new Uint8Array(bytes.length + count);
  let i = 0;
  for (const b of bytes) {
    out[i++] = b;
    if (b === IAC) out[i++] = IAC;
  }
  return out;
}

export function negotiation(verb: NegotiationVerb, option: number): Uint8Array {
  return Uint8Array.of(IAC, verb, option);
}

export function subnegotiation(option: number, payload: Uint8Array): Uint8Array {
  return Uint8Array.from([IAC, SB, option, ...escapeTelnetData(payload), IAC, SE]);
}
