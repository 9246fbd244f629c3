import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";
import { testConfig } from "../../support/testConfig.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "events-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const OPERATOR_TOKEN = "events-operator-token-0123456789";
const asOperator = { ...auth, authorization: `Bearer ${OPERATOR_TOKEN}` };

interface SseEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** Reads an SSE stream into a list; `until` waits for a matching event. */
function readEvents(url: string): {
  events: SseEvent[];
  until(pred: (e: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
  close(): Promise<void>;
} {
  const events: SseEvent[] = [];
  const abort = new AbortController();
  const done = (async () => {
    const res = await fetch(`${url}/v1/events`, { headers: auth, signal: abort.signal });
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of res.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
      }
    }
  })().catch(() => undefined);
  return {
    events,
    async until(pred, ms = 5000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const hit = events.find(pred);
        if (hit) return hit;
        if (Date.now() > deadline)
          throw new Error(`no such event; saw ${JSON.stringify(events.map((e) => [e.event, e.data.type]))}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async close() {
      abort.abort();
      await done;
    },
  };
}

let bridge: Bridge;
let arm: FakeArm;
let server: RunningHttpServer;

beforeEach(async () => {
  const config = testConfig({ approval: { move_joints: "always" } });
  arm = new FakeArm(config);
  bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
  // A state throttle of a minute: any state event seen within the test was not sent by the throttle.
  server = await startHttpServer(bridge, {
    token: TOKEN,
    operatorToken: OPERATOR_TOKEN,
    port: 0,
    events: { stateIntervalMs: 60_000 },
  });
});

afterEach(async () => {
  await server.close();
  await bridge.close();
});

describe("the event stream", () => {
  it("sends a state event at once when the arm link changes, not at the throttle", async () => {
    const stream = readEvents(server.url);
    try {
      await stream.until((e) => e.event === "state");
      await arm.dropLink(300);
      const lost = await stream.until(
        (e) => e.event === "state" && (e.data.link as { state: string }).state === "reconnecting",
        1000,
      );
      expect(lost.data.link).toMatchObject({
        state: "reconnecting",
        attempt: 1,
        detail: "link dropped (fake)",
        last_loss: { reason: "link dropped (fake)", in_flight: [] },
      });
      const back = await stream.until(
        (e) =>
          e.event === "state" &&
          (e.data.link as { state: string }).state === "connected" &&
          stream.events.indexOf(e) > stream.events.indexOf(lost),
        2000,
      );
      expect(back.data.link).toMatchObject({ state: "connected", last_loss: { incarnation_changed: false } });
      // The executor says so on the stream too: what the link went through, and what it looks at again.
      await stream.until((e) => e.event === "executor" && (e.data as { type: string }).type === "link_returned", 1000);
    } finally {
      await stream.close();
    }
  });

  it("carries approval_requested (with the planned targets) and approval_resolved; the state counts what is pending", async () => {
    const stream = readEvents(server.url);
    try {
      await stream.until((e) => e.event === "state");
      const call = fetch(`${server.url}/v1/calls`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ calls: [{ id: "sse-1", name: "move_joints", args: { positions: { elbow: 0.8 } } }] }),
      }).then((r) => r.json() as Promise<{ responses: { response: { output: { status: string } } }[] }>);
      const requested = await stream.until((e) => e.event === "executor" && e.data.type === "approval_requested");
      const approval = requested.data.approval as { id: string; targets: Record<string, number>; call_id: string };
      expect(approval).toMatchObject({ call_id: "sse-1", targets: { elbow: 0.8 } });
      expect(
        ((await (await fetch(`${server.url}/v1/state`, { headers: auth })).json()) as { approvals_pending: number })
          .approvals_pending,
      ).toBe(1);
      expect(arm.sent).toHaveLength(0);
      const res = await fetch(`${server.url}/v1/approvals/${approval.id}/approve`, {
        method: "POST",
        headers: asOperator,
        body: JSON.stringify({ operator: "ana" }),
      });
      expect(res.status).toBe(200);
      const resolved = await stream.until((e) => e.event === "executor" && e.data.type === "approval_resolved");
      expect(resolved.data.approval).toMatchObject({ id: approval.id, decision: "approved", operator: "ana" });
      expect((await call).responses[0]!.response.output.status).toBe("done");
      expect(arm.sent).toHaveLength(1);
      const again = await fetch(`${server.url}/v1/approvals/${approval.id}/decline`, {
        method: "POST",
        headers: asOperator,
        body: JSON.stringify({ operator: "ana" }),
      });
      expect(again.status).toBe(409);
      expect(((await again.json()) as { error: { code: string } }).error.code).toBe("ARMB_ERR_APPROVAL_DECIDED");
    } finally {
      await stream.close();
    }
  });
});
