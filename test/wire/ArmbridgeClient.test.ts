import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/wire/client/ApiError.js";
import { ArmbridgeClient, type FetchLike } from "../../src/wire/client/ArmbridgeClient.js";

/** A client whose fetch answers `status` with `body`, recording what it was asked. */
function clientAnswering(status: number, body: string): { client: ArmbridgeClient; asked: [string, RequestInit][] } {
  const asked: [string, RequestInit][] = [];
  const fetch: FetchLike = async (url, init) => {
    asked.push([url, init]);
    return new Response(body, { status, headers: { "content-type": "application/json" } });
  };
  return { client: new ArmbridgeClient({ url: "http://bridge.test/", token: "tok", fetch }), asked };
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("ArmbridgeClient", () => {
  it("calls a route by its name: method, path with its parameters encoded, bearer token, JSON body", async () => {
    const decided = { id: "apr 1", call_id: "c1", tool: "move_joints", decision: "approved", operator: "ana", at: 1 };
    const { client, asked } = clientAnswering(200, JSON.stringify(decided));
    await client.call("approve", { params: { id: "apr 1" }, body: { operator: "ana" } }).catch(() => undefined);
    const [url, init] = asked[0]!;
    expect(url).toBe("http://bridge.test/v1/approvals/apr%201/approve");
    expect(init.method).toBe("POST");
    expect(init.headers).toMatchObject({ authorization: "Bearer tok", "content-type": "application/json" });
    expect(JSON.parse(init.body as string)).toEqual({ operator: "ana" });
  });

  it("passes an answer that fits its route's schema through as it came", async () => {
    const { client } = clientAnswering(200, JSON.stringify({ cancelled: ["a"], not_waiting: [] }));
    expect(await client.call("cancelCalls", { body: { ids: ["a"] } })).toEqual({ cancelled: ["a"], not_waiting: [] });
  });

  it("refuses an answer that is not the contract's, with the one error class and a coded message naming the field", async () => {
    const { client } = clientAnswering(200, JSON.stringify({ approvals: [{ id: 7 }] }));
    const e = await failure(client.call("approvals"));
    expect(e).toMatchObject({ status: 200, code: "ARMB_ERR_HTTP_BAD_ANSWER" });
    expect(e.message).toContain("GET /v1/approvals answered 200");
    expect(e.message).toContain("approvals.0");
  });

  it("describes what breaks the contract in English words, as the server's own checks do (zod/mini brings none)", async () => {
    const { client } = clientAnswering(200, JSON.stringify({ cancelled: [7], not_waiting: [], extra: true }));
    const e = await failure(client.call("cancelCalls", { body: { ids: ["a"] } }));
    expect(e.message).toContain("cancelled.0: Invalid input: expected string, received number");
    expect(e.message).toContain('(answer): Unrecognized key: "extra"');
  });

  it("refuses an answer that is not JSON at all", async () => {
    const { client } = clientAnswering(200, "<html>proxy</html>");
    const e = await failure(client.call("state"));
    expect(e).toMatchObject({ status: 200, code: "ARMB_ERR_HTTP_BAD_ANSWER" });
    expect(e.message).toContain("not JSON");
  });

  it("passes an error answer on with the server's status, code and message", async () => {
    const { client } = clientAnswering(
      409,
      JSON.stringify({ error: { code: "ARMB_ERR_APPROVAL_DECIDED", message: "already approved" } }),
    );
    const e = await failure(client.call("decline", { params: { id: "a" }, body: { operator: "ana" } }));
    expect(e).toMatchObject({ status: 409, code: "ARMB_ERR_APPROVAL_DECIDED", message: "already approved" });
  });

  it("codes an error answer that is not the API's shape by its status", async () => {
    const { client } = clientAnswering(502, "Bad Gateway");
    expect(await failure(client.call("tools"))).toMatchObject({
      status: 502,
      code: "HTTP_502",
      message: "Bad Gateway",
    });
  });

  it("hands each request its caller's signal, and sets no timeout of its own", async () => {
    const { client, asked } = clientAnswering(200, JSON.stringify({ cancelled: [], not_waiting: [] }));
    const controller = new AbortController();
    await client.call("cancelCalls", { body: { ids: ["x"] } }, { signal: controller.signal });
    await client.call("cancelCalls", { body: { ids: ["x"] } });
    expect(asked[0]![1].signal).toBe(controller.signal);
    expect(asked[1]![1].signal).toBeUndefined();
  });

  it("reads the event stream: named events, JSON data, heartbeats skipped", async () => {
    const stream = 'event: state\ndata: {"a":1}\n\n: heartbeat\n\nevent: executor\ndata: {"type":"x"}\n\n';
    const { client } = clientAnswering(200, stream);
    const events = [];
    for await (const e of await client.events(new AbortController().signal)) events.push(e);
    expect(events).toEqual([
      { event: "state", data: { a: 1 } },
      { event: "executor", data: { type: "x" } },
    ]);
  });

  it("checks each event's data against its name's schema: a fitting one passes, a broken one is a coded error, an unknown name is skipped", () => {
    const { client } = clientAnswering(200, "");
    const timedOut = { type: "timed_out", callId: "c1", tool: "move_joints", client: null, actionId: "a1" };
    expect(client.checkEvent({ event: "executor", data: timedOut })).toEqual({ event: "executor", data: timedOut });
    let error: unknown;
    try {
      client.checkEvent({ event: "executor", data: { ...timedOut, actionId: 7 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 200, code: "ARMB_ERR_HTTP_BAD_ANSWER" });
    expect((error as ApiError).message).toContain("its executor event: actionId: Invalid input: expected string");
    expect(() => client.checkEvent({ event: "state", data: { pose: {} } })).toThrow(ApiError);
    expect(client.checkEvent({ event: "news_of_a_later_version", data: {} })).toBeUndefined();
  });
});
