import { Readable } from 'node:stream';
import memory from 'aedes-persistence';

/**
 * Aedes' in-memory persistence with its retained messages kept by topic. The stock one answers
 * every subscription by testing each retained message against it: with every device retaining its
 * status, 10,000 devices subscribing to their own two topics cost 200 million tests, and connecting
 * a fleet took minutes. Here a subscription to a topic without wildcards (every device's) is one
 * lookup; a wildcard filter (Atrium's own `atrium/v1/devices/+/status`, once per connection) still
 * walks the messages, as any subscriber to a wildcard has to be sent them all.
 */

/** The part of a stored packet this file reads; aedes hands over more and gets it back as it was. */
interface RetainedPacket {
  topic: string;
  payload: Buffer | string;
}

/** Does an MQTT topic filter match this topic name? `+` is one level, `#` the rest (the parent level too). */
export function topicMatches(filter: string, topic: string): boolean {
  // MQTT 3.1.1 §4.7.2: a filter starting with a wildcard does not match a topic starting with `$`.
  if (topic.startsWith('$') && (filter.startsWith('+') || filter.startsWith('#'))) return false;
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    const level = f[i];
    if (level === '#') return i === f.length - 1;
    if (i >= t.length) return false;
    if (level !== '+' && level !== t[i]) return false;
  }
  return f.length === t.length;
}

const hasWildcard = (filter: string) => filter.includes('+') || filter.includes('#');

/** The persistence for `Aedes.createBroker({ persistence })`, with `retainedMatching` for the server's in-process link. */
export function indexedPersistence() {
  // Everything but the retained messages stays aedes-persistence's (typed loosely: its callback types
  // describe the older interface, while aedes 1.x calls these methods and awaits their promises).
  const base: object = memory();
  const retained = new Map<string, RetainedPacket>();
  /** Retained messages tested against a wildcard filter so far (an exact topic is looked up, never tested). */
  const stats = { tested: 0 };

  function* matching(filters: readonly string[]): Generator<RetainedPacket> {
    for (const filter of filters) {
      if (!hasWildcard(filter)) {
        const hit = retained.get(filter);
        if (hit) yield hit;
        continue;
      }
      for (const [topic, packet] of retained) {
        stats.tested++;
        if (topicMatches(filter, topic)) yield packet;
      }
    }
  }

  // Every QoS 1 message asks the persistence which offline sessions (clean = false) want it, and
  // hands it their queues: two promises and a topic match per message. Until a client keeps a
  // session (Atrium's devices do not), the answer is known: nobody.
  const stock = base as {
    addSubscriptions(client: unknown, subs: unknown[]): Promise<void>;
    subscriptionsByTopic(topic: string): Promise<unknown[]>;
    outgoingEnqueueCombi(subs: unknown[], packet: unknown): Promise<void>;
  };
  const addSubscriptions = stock.addSubscriptions.bind(base);
  const subscriptionsByTopic = stock.subscriptionsByTopic.bind(base);
  const outgoingEnqueueCombi = stock.outgoingEnqueueCombi.bind(base);
  let sessionKept = false;
  // The answers to a message nobody offline wants, made once and shared by all such messages (a
  // flood's every message) rather than a new promise each: no session, nothing queued.
  const nobody = Promise.resolve(Object.freeze([]) as unknown as unknown[]);
  const queuedToNobody = Promise.resolve();

  return Object.assign(base, {
    retainedStats: stats,
    // Called only for clients that keep their session: from then on every message is matched.
    addSubscriptions(client: unknown, subs: unknown[]) {
      sessionKept = true;
      return addSubscriptions(client, subs);
    },
    subscriptionsByTopic(topic: string) {
      return sessionKept ? subscriptionsByTopic(topic) : nobody;
    },
    outgoingEnqueueCombi(subs: unknown[], packet: unknown) {
      return subs.length ? outgoingEnqueueCombi(subs, packet) : queuedToNobody;
    },
    // Same contract as aedes-persistence: a copy is kept, an empty payload clears the topic.
    async storeRetained(packet: RetainedPacket) {
      if (packet.payload.length === 0) retained.delete(packet.topic);
      else retained.set(packet.topic, { ...packet });
    },
    createRetainedStream(pattern: string) {
      return Readable.from(matching([pattern]));
    },
    createRetainedStreamCombi(patterns: string[]) {
      return Readable.from(matching(patterns));
    },
    /** The retained messages matching these filters, right now (a synchronous read). */
    retainedMatching(filters: readonly string[]): RetainedPacket[] {
      return [...matching(filters)];
    },
  });
}

export type IndexedPersistence = ReturnType<typeof indexedPersistence>;
