import { createServer, type Server } from "node:http";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Bridge } from "../../src/bridge/Bridge.js";
import { ImageBudget, RESPONSE_IMAGE_BUDGET_BYTES } from "../../src/cameras/ImageBudget.js";
import { MAX_FRAME_BYTES } from "../../src/cameras/sources/HttpSnapshotSource.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { DEFAULT_CONFIG_PATH, parseConfig } from "../../src/config/loadConfig.js";
import { GeminiToolAdapter } from "../../src/surfaces/gemini/GeminiToolAdapter.js";
import { buildHttpApp } from "../../src/surfaces/http/startHttpServer.js";
import { createMcpServer } from "../../src/surfaces/mcp/createMcpServer.js";
import { resultOf, type FunctionResponse } from "../../src/surfaces/toFunctionResponse.js";
import { FakeArm } from "../support/FakeArm.js";

/**
 * A response's pictures are bounded as a whole, not only frame by frame: an
 * HTTP camera serving a 19.5 MB PNG and a batch of 24 get_camera_image calls
 * used to end in HTTP 500 ("Invalid string length") after 1.7 GB. Frames
 * beyond the per-response budget are refused with ARMB_ERR_IMAGE_BUDGET (or,
 * attached after a motion, described as not delivered), in every surface.
 */
const BIG = 19_500_000;

/** A PNG that is structurally whole (signature, IHDR, one IDAT of `size` bytes, IEND): what inspectImage checks. */
function bigPng(size: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, "latin1");
    return Buffer.concat([head, data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(4000, 0);
  ihdr.writeUInt32BE(3000, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const fixed = 8 + 25 + 12 + 12;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.alloc(size - fixed, 7)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

let server: Server;
let url: string;
let bridge: Bridge | undefined;
const png = bigPng(BIG);

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "image/png", "content-length": png.length });
    res.end(png);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/snapshot.png`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

/** The default arm with HTTP cameras on the big PNG (`attach` ones attach a frame to every motion's result). */
function configWith(cameras: { name: string; attach?: boolean }[]): ArmConfig {
  const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as { arm: { urdf: string } } & Record<string, unknown>;
  raw.arm.urdf = join(dirname(DEFAULT_CONFIG_PATH), raw.arm.urdf);
  raw.timeouts_ms = { ...(raw.timeouts_ms as object), get_camera_image: 20_000 };
  raw.cameras = cameras.map((c) => ({
    name: c.name,
    source: { http: url, timeout_ms: 20_000 },
    stale_after_ms: 60_000,
    attach_to_results: c.attach ?? false,
  }));
  delete raw.scene;
  return parseConfig(raw, "test config");
}

async function bridgeWith(config: ArmConfig): Promise<Bridge> {
  const arm = new FakeArm(config, { motionMs: () => 20 });
  bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
  return bridge;
}

const grabs = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `g${i}`, name: "get_camera_image", args: { camera: "big" } }));

describe("the per-response picture budget", () => {
  it("keeps the per-frame cap below it: one frame at the cap always fits", () => {
    expect(RESPONSE_IMAGE_BUDGET_BYTES).toBeGreaterThanOrEqual(MAX_FRAME_BYTES);
    expect(BIG).toBeLessThan(MAX_FRAME_BYTES);
  });

  it("HTTP: 24 get_camera_image calls on a 19.5 MB PNG answer 200; the frames that fit are delivered, every other call says why it has none", async () => {
    const b = await bridgeWith(configWith([{ name: "big" }]));
    const app = await buildHttpApp(b, { token: "t".repeat(32) });
    try {
      const res = await app.inject({
        method: "POST",
        url: "/v1/calls",
        headers: { authorization: `Bearer ${"t".repeat(32)}` },
        payload: { calls: grabs(24), deadline_ms: 60_000 },
      });
      expect(res.statusCode).toBe(200);
      expect(res.body.length).toBeLessThan(RESPONSE_IMAGE_BUDGET_BYTES * 1.4 + 1_000_000);
      const responses = res.json<{ responses: FunctionResponse[] }>().responses;
      expect(responses).toHaveLength(24);
      const delivered = responses.filter((r) => r.parts?.length === 1);
      expect(delivered).toHaveLength(Math.floor(RESPONSE_IMAGE_BUDGET_BYTES / BIG));
      for (const r of responses.filter((x) => !x.parts))
        expect(resultOf(r.response)).toMatchObject({ status: "failed", error_code: "ARMB_ERR_IMAGE_BUDGET" });
    } finally {
      await app.close();
    }
  }, 120_000);

  it("MCP: a motion with frames attached from two big cameras carries the one that fits; the other is described as not delivered", async () => {
    const b = await bridgeWith(
      configWith([
        { name: "big", attach: true },
        { name: "big2", attach: true },
      ]),
    );
    const server = createMcpServer(b);
    const client = new Client({ name: "test", version: "0" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const r = await client.callTool({ name: "move_joints", arguments: { positions: { wrist_3: 0.2 } } });
      const content = r.content as { type: string }[];
      expect(content.filter((c) => c.type === "image")).toHaveLength(1);
      const images = (r.structuredContent as { status: string; images: { camera: string; delivered_as: string }[] })
        .images;
      expect((r.structuredContent as { status: string }).status).toBe("done");
      expect(images).toHaveLength(2);
      expect(images.filter((i) => i.delivered_as.startsWith("not delivered"))).toHaveLength(1);
    } finally {
      await client.close();
      await server.close();
    }
  }, 120_000);

  it("agent loops: a unary turn is one response; a Live tool response gathers single-call executes under one budget", async () => {
    const b = await bridgeWith(configWith([{ name: "big" }]));
    const adapter = new GeminiToolAdapter(b.executor);
    const calls = grabs(3).map((c) => ({ ...c, idAssigned: false }));
    const unary = await adapter.respond(calls, { deadlineMs: 60_000 });
    expect(unary.filter((r) => r.parts)).toHaveLength(1);
    const live = await Promise.all(
      adapter.respondEach(
        calls.map((c) => ({ ...c, id: `${c.id}-live` })),
        { deadlineMs: 60_000, signalFor: () => new AbortController().signal },
      ),
    );
    expect(live.filter((r) => r.parts)).toHaveLength(1);
    expect(live.filter((r) => !r.parts).map((r) => resultOf(r.response))).toEqual([
      expect.objectContaining({ error_code: "ARMB_ERR_IMAGE_BUDGET" }),
      expect.objectContaining({ error_code: "ARMB_ERR_IMAGE_BUDGET" }),
    ]);
  }, 120_000);
});

describe("ImageBudget", () => {
  it("counts frames in the order they are ready and refuses what does not fit, counting nothing for it", () => {
    const budget = new ImageBudget(100);
    expect(budget.take(60)).toBe(true);
    expect(budget.take(50)).toBe(false);
    expect(budget.take(40)).toBe(true);
    expect(budget.usedBytes).toBe(100);
  });

  it("takes at most two captures at once for one response; a queued capture ends with its call's signal", async () => {
    const budget = new ImageBudget();
    let running = 0;
    let most = 0;
    const grab = async (): Promise<number> => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 20));
      running--;
      return 1;
    };
    const results = await Promise.all(Array.from({ length: 6 }, () => budget.capture(AbortSignal.timeout(5000), grab)));
    expect(results).toEqual([1, 1, 1, 1, 1, 1]);
    expect(most).toBe(2);
    const slow = (): Promise<number> => new Promise((r) => setTimeout(() => r(2), 200));
    const first = [budget.capture(AbortSignal.timeout(5000), slow), budget.capture(AbortSignal.timeout(5000), slow)];
    await expect(budget.capture(AbortSignal.timeout(30), grab)).rejects.toThrow();
    expect(await Promise.all(first)).toEqual([2, 2]);
  });
});
