import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { startBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { DEFAULT_CONFIG_PATH, parseConfig } from "../../src/config/loadConfig.js";
import { createServoBusTransport } from "../../src/transport/bus/index.js";
import { LinkStateTracker } from "../../src/transport/link/LinkStateTracker.js";
import type { LinkState, LinkStateName, Transport } from "../../src/transport/Transport.js";
import { createRos2TransportOnDouble } from "../doubles/createRos2TransportOnDouble.js";
import { busTestConfig } from "../support/busTestConfig.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Every link state the transport announces, from subscription on. */
function record(transport: Transport): LinkState[] {
  const seen: LinkState[] = [];
  const off = transport.onLinkState((s) => seen.push(s));
  cleanups.push(async () => off());
  return seen;
}

async function until(transport: Transport, state: LinkStateName, ms = 5000): Promise<LinkState> {
  const deadline = Date.now() + ms;
  while (transport.linkState().state !== state) {
    if (Date.now() > deadline)
      throw new Error(`link not ${state} within ${ms} ms: ${JSON.stringify(transport.linkState())}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return transport.linkState();
}

describe("LinkStateTracker", () => {
  it("tells listeners of changes only, keeps `since` across attempts, and drops the attempt outside reconnecting", () => {
    let t = 1000;
    const tracker = new LinkStateTracker({ now: () => t, lastStatusAt: () => 900 });
    const seen: LinkState[] = [];
    tracker.subscribe((s) => seen.push(s));
    expect(tracker.snapshot()).toEqual({ state: "down", since: 1000, last_status_at: 900, detail: "not opened yet" });
    t = 1100;
    tracker.set("connected");
    tracker.set("connected");
    t = 1200;
    tracker.set("reconnecting", { attempt: 1, detail: "link lost" });
    t = 1300;
    tracker.set("reconnecting", { attempt: 2, detail: "link lost" });
    tracker.set("connected", { attempt: 3 });
    expect(seen).toEqual([
      { state: "connected", since: 1100, last_status_at: 900 },
      { state: "reconnecting", since: 1200, attempt: 1, last_status_at: 900, detail: "link lost" },
      { state: "reconnecting", since: 1200, attempt: 2, last_status_at: 900, detail: "link lost" },
      { state: "connected", since: 1300, last_status_at: 900 },
    ]);
  });

  it("a listener that throws does not keep the others from hearing", () => {
    const errors: unknown[] = [];
    const tracker = new LinkStateTracker({ lastStatusAt: () => undefined, onListenerError: (e) => errors.push(e) });
    const heard: string[] = [];
    tracker.subscribe(() => {
      throw new Error("boom");
    });
    tracker.subscribe((s) => heard.push(s.state));
    tracker.set("connected");
    expect(heard).toEqual(["connected"]);
    expect(errors).toHaveLength(1);
  });
});

describe("ROS 2 transport link state (rclnodejs double)", () => {
  function config() {
    const raw = parseYaml(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, unknown>;
    raw.stale_after_ms = 150;
    return parseConfig(raw);
  }

  it("down before open; connected with servers and fresh /joint_states; reconnecting when they stop; connected when they resume; down after close", async () => {
    const o = await createRos2TransportOnDouble(config());
    cleanups.push(() => o.close());
    expect(o.transport.linkState().state).toBe("down");
    await o.transport.open(AbortSignal.timeout(5000));
    expect(o.transport.linkState()).toMatchObject({ state: "connected" });
    const seen = record(o.transport);

    o.double.world.stopJointStates();
    const lost = await until(o.transport, "reconnecting");
    expect(lost.detail).toMatch(/joint_states/);
    o.double.world.resumeJointStates();
    await until(o.transport, "connected");

    o.double.world.killServer("/joint_trajectory_controller/follow_joint_trajectory");
    const noServer = await until(o.transport, "reconnecting");
    expect(noServer.detail).toMatch(/action server\(s\) not available: joint_trajectory_controller/);

    await o.transport.close();
    expect(o.transport.linkState()).toMatchObject({ state: "down", detail: "the transport is closed" });
    // One announcement per change (a loss, each attempt, a return), not one per poll.
    const states = seen.map((s) => s.state).filter((state, i, all) => state !== all[i - 1]);
    expect(states).toEqual(["reconnecting", "connected", "reconnecting", "down"]);
    expect(seen[0]).toMatchObject({
      state: "reconnecting",
      last_loss: { reason: expect.stringMatching(/joint_states/) },
    });
    for (let i = 1; i < seen.length; i++)
      expect(JSON.stringify(seen[i]), "an announcement that changed nothing").not.toBe(JSON.stringify(seen[i - 1]));
  });
});

describe("servo-bus transport link state (bus firmware-sim)", () => {
  it("connected after open; reconnecting once the servos stop answering; down after close", async () => {
    const config = busTestConfig("dynamixel_2");
    const sim = await startBusSimulator({
      bus: "dynamixel_2",
      armConfig: config,
      link: "tcp",
      port: 0,
      seed: 3,
      effects: new MemoryEffects(),
    });
    let simOpen = true;
    const transport = createServoBusTransport(config, sim.link);
    cleanups.push(async () => {
      await transport.close();
      if (simOpen) await sim.close();
    });
    expect(transport.linkState().state).toBe("down");
    await transport.open(AbortSignal.timeout(5000));
    expect(transport.linkState()).toMatchObject({ state: "connected" });
    expect(transport.linkState().last_status_at).toBeGreaterThan(0);
    await sim.close();
    simOpen = false;
    const lost = await until(transport, "reconnecting");
    expect(lost.detail).toMatch(/lost|no answer from servo id\(s\) 1/);
    await transport.close();
    expect(transport.linkState().state).toBe("down");
  });
});
