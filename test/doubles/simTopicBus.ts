/**
 * The topics of the double's ROS graph: publishers and subscriptions matched
 * by name, type and QoS as DDS matches them, so a test of a QoS mistake fails
 * the way it fails on a robot.
 *
 * - Reliability: a best-effort publisher does not reach a RELIABLE
 *   subscription; a reliable publisher reaches both (ROS 2 "About QoS
 *   settings", QoS compatibilities table).
 * - Durability: a TRANSIENT_LOCAL subscription does not match a VOLATILE
 *   publisher (requested durability above the offered one); a transient-local
 *   publisher keeps its last `depth` samples and hands them to a late
 *   transient-local subscription when it joins, never to a volatile one.
 */

export type Deliver = (fn: () => void) => void;

export type Reliability = "reliable" | "best_effort";
export type Durability = "volatile" | "transient_local";

export interface TopicQos {
  readonly reliability: Reliability;
  readonly durability: Durability;
}

export const DEFAULT_QOS: TopicQos = { reliability: "reliable", durability: "volatile" };

export interface SimSubscription {
  readonly topic: string;
  readonly type: string;
  readonly qos: TopicQos;
  readonly deliver: Deliver;
  readonly callback: (msg: unknown) => void;
}

/** What `ros2 topic info -v` (rclnodejs getPublishersInfoByTopic) reports of a publisher. */
export interface SimPublisherInfo {
  readonly topic: string;
  readonly type: string;
  readonly node: string;
  readonly namespace: string;
  readonly qos: TopicQos;
}

export interface SimPublisher {
  readonly info: SimPublisherInfo;
  /** Returns how many subscriptions it reached. */
  publish(msg: unknown): number;
}

export function topicName(name: string): string {
  return name.startsWith("/") ? name : `/${name}`;
}

function compatible(pub: TopicQos, sub: TopicQos): boolean {
  if (pub.reliability === "best_effort" && sub.reliability === "reliable") return false;
  if (pub.durability === "volatile" && sub.durability === "transient_local") return false;
  return true;
}

export class SimTopicBus {
  readonly #publishers: Array<SimPublisherInfo & { retained: unknown[]; depth: number }> = [];
  readonly #subscriptions = new Set<SimSubscription>();

  advertise(
    topic: string,
    type: string,
    node: string,
    qos: TopicQos = DEFAULT_QOS,
    depth = 1,
    namespace = "/",
  ): SimPublisher {
    const entry = { topic: topicName(topic), type, node, namespace, qos, retained: [] as unknown[], depth };
    this.#publishers.push(entry);
    return {
      info: entry,
      publish: (msg) => {
        if (qos.durability === "transient_local") {
          entry.retained.push(msg);
          if (entry.retained.length > depth) entry.retained.shift();
        }
        let reached = 0;
        for (const s of this.#subscriptions) {
          if (s.topic === entry.topic && s.type === type && compatible(qos, s.qos)) {
            s.deliver(() => s.callback(msg));
            reached++;
          }
        }
        return reached;
      },
    };
  }

  /** Stops a publisher: it leaves the graph and keeps nothing for late joiners. */
  unadvertise(publisher: SimPublisher): void {
    const i = this.#publishers.findIndex((p) => p === publisher.info);
    if (i >= 0) this.#publishers.splice(i, 1);
  }

  subscribe(sub: SimSubscription): () => void {
    const s = { ...sub, topic: topicName(sub.topic) };
    this.#subscriptions.add(s);
    if (s.qos.durability === "transient_local") {
      for (const p of this.#publishers) {
        if (p.topic === s.topic && p.type === s.type && compatible(p.qos, s.qos))
          for (const m of p.retained) s.deliver(() => s.callback(m));
      }
    }
    return () => this.#subscriptions.delete(s);
  }

  publishersOf(topic: string): SimPublisherInfo[] {
    return this.#publishers.filter((p) => p.topic === topicName(topic));
  }

  subscriptionCount(topic: string, type?: string): number {
    let n = 0;
    for (const s of this.#subscriptions)
      if (s.topic === topicName(topic) && (type === undefined || s.type === type)) n++;
    return n;
  }
}
