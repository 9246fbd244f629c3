import { afterEach, describe, expect, it } from "vitest";
import { startBusSimulator, type RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { baudRateReply, decodeBaud, encodeBaud, setBaudRateCommand } from "../../src/protocol/rfc2217/comPort.js";
import { Rfc2217Link } from "../../src/transport/link/rfc2217/Rfc2217Link.js";
import { escapeTelnetData, IAC, TelnetDecoder, TELNET_OPTION, WILL } from "../../src/protocol/rfc2217/telnet.js";
import { linkForUrl } from "../../src/transport/link/openLink.js";
import { isArmbridgeError } from "../../src/errors.js";

describe("Telnet / RFC 2217 codec", () => {
  it("doubles 0xFF in data and undoes it, in any chunking", () => {
    const data = Uint8Array.of(0xff, 0xff, 0xfd, 0x00, 0x01, 0xff, 0x42);
    const wire = escapeTelnetData(data);
    expect([...wire]).toEqual([0xff, 0xff, 0xff, 0xff, 0xfd, 0x00, 0x01, 0xff, 0xff, 0x42]);
    for (let cut = 0; cut <= wire.length; cut++) {
      const d = new TelnetDecoder();
      const events = [...d.push(wire.subarray(0, cut)), ...d.push(wire.subarray(cut))];
      const bytes = events.flatMap((e) => (e.kind === "data" ? [...e.bytes] : []));
      expect(bytes).toEqual([...data]);
    }
  });

  it("reads negotiations and a SET-BAUDRATE with a 0xFF byte in its value", () => {
    const d = new TelnetDecoder();
    const events = d.push(Uint8Array.from([IAC, WILL, TELNET_OPTION.comPort, 0x10, ...setBaudRateCommand(0x00ff00ff)]));
    expect(events[0]).toEqual({ kind: "negotiation", verb: WILL, option: TELNET_OPTION.comPort });
    expect(events[1]).toEqual({ kind: "data", bytes: Uint8Array.of(0x10) });
    const sb = events[2];
    expect(sb?.kind).toBe("subnegotiation");
    if (sb?.kind === "subnegotiation") expect(decodeBaud(sb.payload.subarray(1))).toBe(0x00ff00ff);
    expect([...encodeBaud(1_000_000)]).toEqual([0x00, 0x0f, 0x42, 0x40]);
    expect([...baudRateReply(57600).subarray(0, 4)]).toEqual([IAC, 0xfa, 44, 101]);
  });
});

describe("rfc2217:// link to the bus simulator", () => {
  let sim: RunningBusSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it("negotiates COM-PORT-OPTION, sets the simulated line's baud, and carries 0xFF-laden packets intact", async () => {
    sim = await startBusSimulator({
      bus: "dynamixel_2",
      armConfig: loadConfig("config/koch-follower.yaml"),
      link: "rfc2217",
      port: 0,
      seed: 1,
      effects: new MemoryEffects(),
    });
    expect(sim.link).toMatch(/^rfc2217:\/\/127\.0\.0\.1:\d+$/);
    const link = linkForUrl(sim.link, { baudRate: 57600 });
    expect(link).toBeInstanceOf(Rfc2217Link);
    await link.open(AbortSignal.timeout(5000));
    try {
      expect(sim.bus.lineBaud()).toBe(57600);
      await link.setBaudRate!(1_000_000);
      expect(sim.bus.lineBaud()).toBe(1_000_000);
      // A Dynamixel ping (FF FF FD 00 …) answered by servo 1 with its model number: both directions carry 0xFF bytes.
      const got: number[] = [];
      link.onData((c) => got.push(...c));
      link.write(Uint8Array.of(0xff, 0xff, 0xfd, 0x00, 0x01, 0x03, 0x00, 0x01, 0x19, 0x4e));
      await new Promise((r) => setTimeout(r, 200));
      expect(got.slice(0, 5)).toEqual([0xff, 0xff, 0xfd, 0x00, 0x01]);
      expect(got[8]).toBe(0x00);
      expect(got[9]! | (got[10]! << 8)).toBe(1060); // xl430-w250
    } finally {
      await link.close();
    }
  });

  it("a raw tcp:// server refuses the option: rfc2217:// to it fails to open with ARMB_ERR_LINK_OPEN", async () => {
    sim = await startBusSimulator({
      bus: "feetech_sts",
      armConfig: loadConfig("config/so101.yaml"),
      link: "tcp",
      port: 0,
      seed: 1,
      effects: new MemoryEffects(),
    });
    const link = linkForUrl(sim.link.replace("tcp://", "rfc2217://"), { baudRate: 1_000_000 });
    const error = await link.open(AbortSignal.timeout(5000)).catch((e: unknown) => e);
    expect(isArmbridgeError(error, "ARMB_ERR_LINK_OPEN")).toBe(true);
    expect(link.isOpen).toBe(false);
  });
});
