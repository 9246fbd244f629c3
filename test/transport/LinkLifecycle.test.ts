import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ArmbridgeError } from "../../src/errors.js";
import { LinkLifecycle, type LinkEvent, type LinkReturn } from "../../src/transport/link/LinkLifecycle.js";
import type { LinkState } from "../../src/transport/Transport.js";

const lifecycles: LinkLifecycle[] = [];
afterEach(async () => {
  for (const l of lifecycles.splice(0)) await l.close();
});

/** A lifecycle whose attempts answer as `answers` says, one per attempt (the last one repeats). */
function lifecycle(
  answers: ReadonlyArray<() => LinkReturn>,
  options: { reconnect?: boolean; inFlight?: string[] } = {},
) {
  let n = 0;
  const seen: LinkState[] = [];
  const events: LinkEvent[] = [];
  const l = new LinkLifecycle({
    describe: "test link",
    logger: pino({ level: "silent" }),
    backoff: { initialMs: 10, maxMs: 40, jitter: 0 },
    reconnect: options.reconnect,
    attemptTimeoutMs: 1000,
    lastStatusAt: () => undefined,
    incarnation: () => "inc",
    inFlight: () => options.inFlight ?? [],
    attempt: async () => (answers[Math.min(n++, answers.length - 1)] ?? answers[0]!)(),
  });
  lifecycles.push(l);
  l.subscribe((s) => seen.push(s));
  l.onEvent((e) => events.push(e));
  return { l, seen, events, attempts: () => n };
}

const fail = (why: string) => (): LinkReturn => {
  throw new Error(why);
};
const until = async (ok: () => boolean, ms = 2000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe("LinkLifecycle: the one link lifecycle of every transport", () => {
  it("connected → reconnecting (attempt n, next try at …) → connected, with a bounded back-off and one loss record", async () => {
    const { l, seen, events, attempts } = lifecycle(
      [
        fail("no answer"),
        fail("no answer"),
        fail("no answer"),
        fail("no answer"),
        () => ({ incarnation: "same", detail: "back" }),
      ],
      { inFlight: ["act_1"] },
    );
    l.opened();
    l.lost("cable pulled");
    await until(() => l.state === "connected");
    expect(attempts()).toBe(5);
    const waits = seen.filter((s) => s.state === "reconnecting" && s.next_attempt_at !== undefined);
    expect(waits.map((s) => s.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(
      seen
        .filter((s) => s.state === "reconnecting")
        .every((s) => s.since === seen.find((x) => x.state === "reconnecting")!.since),
    ).toBe(true);
    expect(l.snapshot()).toMatchObject({
      state: "connected",
      last_loss: {
        reason: "cable pulled",
        in_flight: ["act_1"],
        attempts: 5,
        incarnation_changed: false,
        returned_detail: "back",
      },
    });
    expect(events.map((e) => e.type)).toEqual([
      "lost",
      "attempt_failed",
      "attempt_failed",
      "attempt_failed",
      "attempt_failed",
      "returned",
    ]);
  });

  it("the back-off is bounded: with jitter 0 the delays go 10, 20, 40, 40 … ms", async () => {
    const { l, seen } = lifecycle([fail("no answer")]);
    l.opened();
    const lostAt = Date.now();
    l.lost("gone");
    await until(() => seen.filter((s) => s.next_attempt_at !== undefined).length >= 6);
    const scheduled = seen.filter((s) => s.next_attempt_at !== undefined).map((s) => s.next_attempt_at!);
    const delays = scheduled.map((at, i) => at - (i === 0 ? lostAt : scheduled[i - 1]!));
    // Each delay counts from when it was scheduled (after the previous attempt ran), so it is at least the back-off.
    expect(delays[0]).toBeGreaterThanOrEqual(9);
    for (const d of delays.slice(3)) expect(d).toBeLessThan(40 + 200);
  });

  it("a new incarnation is recorded as such; a restart behind a link that stayed up is reported with no attempts", async () => {
    const { l, events } = lifecycle([() => ({ incarnation: "new", detail: "torque was off" })]);
    l.opened();
    l.lost("silent");
    await until(() => l.state === "connected");
    expect(l.snapshot().last_loss).toMatchObject({ incarnation_changed: true, returned_detail: "torque was off" });
    l.restarted("rebooted in place", ["act_2"]);
    expect(l.snapshot()).toMatchObject({
      state: "connected",
      last_loss: { attempts: 0, incarnation_changed: true, in_flight: ["act_2"] },
    });
    expect(events.filter((e) => e.type === "returned").map((e) => e.type === "returned" && e.incarnation)).toEqual([
      "new",
      "new",
    ]);
  });

  it("another device: each refused attempt shows its code and the link never comes back while it answers", async () => {
    const { l, seen } = lifecycle([
      () => {
        throw new ArmbridgeError("ARMB_ERR_DEVICE_REPLACED", { link: "test", detail: "servo 3 is another model" });
      },
    ]);
    l.opened();
    l.lost("gone");
    await until(() => seen.filter((s) => s.error_code === "ARMB_ERR_DEVICE_REPLACED").length >= 3);
    expect(l.state).toBe("reconnecting");
    expect(l.snapshot().detail).toMatch(/another model/);
  });

  it("reconnecting disabled: a loss ends at down and nothing is tried", async () => {
    const { l, attempts } = lifecycle([() => ({ incarnation: "same", detail: "back" })], { reconnect: false });
    l.opened();
    l.lost("gone");
    await new Promise((r) => setTimeout(r, 100));
    expect(attempts()).toBe(0);
    expect(l.snapshot()).toMatchObject({ state: "down", detail: expect.stringMatching(/reconnecting is disabled/) });
  });

  it("close stops the attempts and says down, once", async () => {
    const { l, seen, attempts } = lifecycle([fail("no answer")]);
    l.opened();
    l.lost("gone");
    await until(() => attempts() >= 1);
    await l.close();
    const tried = attempts();
    await new Promise((r) => setTimeout(r, 100));
    expect(attempts()).toBe(tried);
    expect(seen.filter((s) => s.state === "down")).toHaveLength(1);
    expect(l.snapshot().detail).toBe("the transport is closed");
  });
});
