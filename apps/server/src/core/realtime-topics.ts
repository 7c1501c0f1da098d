import { ACCESS_REALTIME, ALARM_REALTIME, APP_CHANGES_TOPIC, DEVICE_REALTIME, EMERGENCY_REALTIME } from '@atrium/contract';

/**
 * Every topic the server publishes on, as a pattern. A subscription to anything else could never
 * receive an event, so it is refused: otherwise each one is an entry the hub keeps for nothing, and
 * a client could make it keep any number of them.
 */
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const exactly = (topic: string) => new RegExp(`^${literal(topic)}$`);
const prefixed = (prefix: string, rest: string) => new RegExp(`^${literal(prefix)}${rest}$`);
// The part after the prefix of a parameterised topic, from the contract's builder with a marker in it.
const prefixOf = (build: (x: string) => string) => build('\u0000').split('\u0000')[0] ?? '';

export const REALTIME_TOPIC_PATTERNS: readonly RegExp[] = [
  /^private-user\.[1-9][0-9]{0,18}$/,
  exactly(APP_CHANGES_TOPIC),
  // A virtual number as the telephony contract allows it (digits, and the dial characters * # +).
  /^calls-management\.[0-9*#+]{1,32}$/,
  exactly(DEVICE_REALTIME.statusTopic),
  exactly(DEVICE_REALTIME.tasksTopic),
  prefixed(prefixOf(DEVICE_REALTIME.searchTopic), '[A-Za-z0-9_-]{1,64}'),
  prefixed(prefixOf(DEVICE_REALTIME.screenTopic), '[0-9a-fA-F-]{36}'),
  exactly(ALARM_REALTIME.topic),
  exactly(ACCESS_REALTIME.eventsTopic),
  prefixed(EMERGENCY_REALTIME.topicPrefix, '[1-9][0-9]{0,18}'),
];

/** Whether the server ever publishes on `topic` (unqualified, as a client names it). */
export const topicCanExist = (topic: string): boolean => REALTIME_TOPIC_PATTERNS.some((p) => p.test(topic));
