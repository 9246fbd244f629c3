import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "real-server-token";
const auth = { authorization: `Bearer ${TOKEN}` };

let bridge: Bridge;
let server: RunningHttpServer;

beforeEach(async () => {
  const config = loadConfig();
  bridge = await Bridge.start({
    config,
    transport: { kind: "custom", transport: new FakeArm(config) },
    dataDir: ":memory:",
  });
  server = await startHttpServer(bridge, { port: 0, token: TOKEN, events: { stateIntervalMs: 20 } });
});

afterEach(async () => {
  await server.close();
  await bridge.close();
});

/** An SSE reader that keeps its buffer between waits, so no event is lost. */
function sseReader(reader: ReadableStreamDefaultReader<string>) {
  let buf = "";
  const seen: { event: string; data: unknown }[] = [];
  return {
    seen,
    /** Resolves with the first event (since the last match) that `want` accepts. */
    async until(want: (event: string, data: unknown) => boolean): Promise<{ event: string; data: unknown }> {
      for (;;) {
        let i: number;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) {
            const e = { event, data: JSON.parse(data) as unknown };
            seen.push(e);
            if (want(e.event, e.data)) return e;
          }
        }
        const { value, done } = await reader.read();
        if (done)
          throw new Error(`stream ended before the wanted event; saw ${JSON.stringify(seen.map((e) => e.event))}`);
        buf += value;
      }
    },
  };
}

describe("startHttpServer on a real socket", () => {
  it("binds 127.0.0.1 on a free port and serves the API", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/v1/state`)).status).toBe(401);
    const res = await fetch(`${server.url}/v1/calls`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ calls: [{ id: "r1", name: "move_joints", args: { positions: { elbow: 0.9 } } }] }),
    });
    const json = (await res.json()) as { responses: { id: string; response: { output: { status: string } } }[] };
    expect(json.responses[0]?.id).toBe("r1");
    expect(json.responses[0]?.response.output.status).toBe("done");
  });

  it("streams state and executor events, and close() ends open streams", async () => {
    expect((await fetch(`${server.url}/v1/events`)).status).toBe(401);
    const res = await fetch(`${server.url}/v1/events`, { headers: auth });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const sse = sseReader(reader);
    const first = await sse.until((e) => e === "state");
    expect(first.data).toMatchObject({ pose: { elbow: 1.0 }, stale: false });

    const call = fetch(`${server.url}/v1/calls`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ calls: [{ id: "s1", name: "move_joints", args: { positions: { elbow: 0.4 } } }] }),
    });
    const settled = await sse.until((e, d) => e === "executor" && (d as { type: string }).type === "settled");
    expect(settled.data).toMatchObject({
      type: "settled",
      callId: "s1",
      tool: "move_joints",
      result: { status: "done" },
    });
    await (await call).text();
    // The throttled state after the motion may come before or after `settled`.
    const movedState = sse.seen.find(
      (e) => e.event === "state" && (e.data as { pose: { elbow: number } }).pose.elbow === 0.4,
    );
    const moved =
      movedState ?? (await sse.until((e, d) => e === "state" && (d as { pose: { elbow: number } }).pose.elbow === 0.4));
    expect(moved.event).toBe("state");

    await server.close();
    expect((await reader.read()).done).toBe(true);
  });
});
