import type { ServerMessage } from '@atrium/contract';
import { useEffect, useMemo, useRef } from 'react';
import { useRefresh } from 'react-admin';
import { debounce } from './realtime';

/** The part of the realtime client pages use: one more topic, or one fewer. */
export interface LiveChannel {
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
}

type Listener = (message: ServerMessage) => void;
const listeners = new Map<string, Set<Listener>>();
let channel: LiveChannel | null = null;

/**
 * The signed-in console's realtime channel (layout/RealtimeBridge) lends itself to pages here, so a
 * page that shows live data (device status, task states) subscribes to its topic while it is open.
 * Answers the function that detaches the channel again.
 */
export function attachLiveChannel(next: LiveChannel): () => void {
  channel = next;
  for (const topic of listeners.keys()) next.subscribe(topic);
  return () => {
    if (channel === next) channel = null;
  };
}

/** Hands a message of the channel to the pages listening to its topic. */
export function dispatchLive(message: ServerMessage): void {
  const set = listeners.get(message.topic);
  if (set) for (const listener of set) listener(message);
}

/** Adds a listener to a topic, subscribing it on the first; answers its removal. */
export function listenLive(topic: string, listener: Listener): () => void {
  let set = listeners.get(topic);
  if (!set) {
    set = new Set();
    listeners.set(topic, set);
    channel?.subscribe(topic);
  }
  set.add(listener);
  return () => {
    const current = listeners.get(topic);
    if (!current) return;
    current.delete(listener);
    if (current.size === 0) {
      listeners.delete(topic);
      channel?.unsubscribe(topic);
    }
  };
}

/** Calls `onMessage` for every message of `topic` while the component is mounted. */
export function useLiveTopic(topic: string, onMessage: Listener): void {
  const handler = useRef(onMessage);
  handler.current = onMessage;
  useEffect(() => listenLive(topic, (m) => handler.current(m)), [topic]);
}

/** Refreshes the page's data when its live topic says something changed (at most twice a second). */
export function useLiveRefresh(topic: string): void {
  const refresh = useRefresh();
  const later = useMemo(() => debounce(refresh, 500), [refresh]);
  useLiveTopic(topic, later);
}
