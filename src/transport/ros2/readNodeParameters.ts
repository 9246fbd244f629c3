import { awaitWithin } from "./awaitWithin.js";
import { ParameterType, type RclNode, type RclServiceClient } from "./rclTypes.js";

export const SRV_LIST_PARAMETERS = "rcl_interfaces/srv/ListParameters";
export const SRV_GET_PARAMETERS = "rcl_interfaces/srv/GetParameters";

/** rcl_interfaces/msg/ParameterValue as rclnodejs delivers it (integers as bigint). */
interface ParameterValueMessage {
  type: number;
  bool_value?: boolean;
  integer_value?: bigint | number;
  double_value?: number;
  string_value?: string;
  bool_array_value?: readonly boolean[];
  integer_array_value?: ReadonlyArray<bigint | number>;
  double_array_value?: ArrayLike<number>;
  string_array_value?: readonly string[];
}

/** A ParameterValue → a plain value (integers as numbers); undefined when not set. */
export function parameterValue(v: ParameterValueMessage): unknown {
  switch (v.type) {
    case ParameterType.PARAMETER_BOOL:
      return v.bool_value;
    case ParameterType.PARAMETER_INTEGER:
      return v.integer_value === undefined ? undefined : Number(v.integer_value);
    case ParameterType.PARAMETER_DOUBLE:
      return v.double_value;
    case ParameterType.PARAMETER_STRING:
      return v.string_value;
    case ParameterType.PARAMETER_BOOL_ARRAY:
      return v.bool_array_value ? [...v.bool_array_value] : [];
    case ParameterType.PARAMETER_INTEGER_ARRAY:
      return v.integer_array_value ? [...v.integer_array_value].map(Number) : [];
    case ParameterType.PARAMETER_DOUBLE_ARRAY:
      return v.double_array_value ? Array.from(v.double_array_value) : [];
    case ParameterType.PARAMETER_STRING_ARRAY:
      return v.string_array_value ? [...v.string_array_value] : [];
    default:
      return undefined;
  }
}

/**
 * Every parameter of a remote node (a controller, a driver), through its
 * parameter services `<node>/list_parameters` and `<node>/get_parameters` —
 * what `ros2 param dump` reads. Plain service clients rather than
 * rclnodejs's ParameterClient, which validates a bare node name and so
 * cannot reach a namespaced controller. Undefined when the node does not
 * answer within `timeoutMs` or before `signal` (not running, or on another
 * ROS_DOMAIN_ID); the clients are always destroyed, and rclnodejs's own
 * waitForService poll ends by itself at the same timeout.
 */
export async function readNodeParameters(
  node: RclNode,
  nodeName: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ReadonlyMap<string, unknown> | undefined> {
  const base = nodeName.startsWith("/") ? nodeName : `/${nodeName}`;
  const clients: RclServiceClient[] = [];
  try {
    const list = node.createClient(SRV_LIST_PARAMETERS, `${base}/list_parameters`);
    clients.push(list);
    const up = await awaitWithin(list.waitForService(timeoutMs), signal);
    if (up.kind !== "value" || !up.value) return undefined;
    const listed = await awaitWithin(request(list, { prefixes: [], depth: 0n }), signal);
    if (listed.kind !== "value") return undefined;
    const names = (listed.value as { result?: { names?: readonly string[] } }).result?.names ?? [];
    if (names.length === 0) return new Map();
    const get = node.createClient(SRV_GET_PARAMETERS, `${base}/get_parameters`);
    clients.push(get);
    const got = await awaitWithin(request(get, { names: [...names] }), signal);
    if (got.kind !== "value") return undefined;
    const values = (got.value as { values?: readonly ParameterValueMessage[] }).values ?? [];
    const out = new Map<string, unknown>();
    names.forEach((name, i) => {
      const v = values[i];
      const value = v ? parameterValue(v) : undefined;
      if (value !== undefined) out.set(name, value);
    });
    return out;
  } finally {
    for (const c of clients) {
      try {
        node.destroyClient(c);
      } catch {
        // A client the node already let go of has nothing left to release.
      }
    }
  }
}

function request(client: RclServiceClient, body: object): Promise<unknown> {
  return new Promise((resolve) => client.sendRequest(body, resolve));
}
