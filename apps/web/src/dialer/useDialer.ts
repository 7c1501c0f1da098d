import { CallRecordSchema, REALTIME_EVENTS, topics } from '@atrium/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslate } from 'react-admin';
import { http } from '../app/http';
import { useLiveTopic } from '../app/live';
import { useAlert } from '../app/useAlert';
import { notifyIncoming, RingTone } from './alerts';
import { createDialerApi, type DialerApi } from './api';
import { DIALER } from './constants';
import { DialerEngine } from './engine';
import { canStartPhone, sipSocketUrl } from './rules';
import { SipPhone } from './sip';

export const dialerApi: DialerApi = createDialerApi(http);

export type MediaApproval = 'pending' | 'approved' | 'denied';

/** Spec comms §4's "media approval": the microphone is allowed (asked once when the dialer starts). */
export function useMediaApproval(): { approval: MediaApproval; ask: () => void } {
  const [approval, setApproval] = useState<MediaApproval>('pending');
  const ask = useRef(() => {
    const media = globalThis.navigator?.mediaDevices;
    if (!media?.getUserMedia) {
      setApproval('denied');
      return;
    }
    media.getUserMedia({ audio: true }).then(
      (stream) => {
        for (const t of stream.getTracks()) t.stop();
        setApproval('approved');
      },
      () => setApproval('denied'),
    );
  }).current;
  useEffect(() => ask(), [ask]);
  return { approval, ask };
}

/**
 * The dialer's engine for the signed-in user: starts the phone once the credentials, the SIP proxy
 * host and media approval are there, follows CallUpdated on `calls-management.{number}`, and stops
 * it all when the console unmounts (sign-out).
 */
export function useDialer(options: { ownNumber: string; proxyHost: string | null; onRing: () => void }) {
  const translate = useTranslate();
  const alert = useAlert();
  const deps = useRef({ translate, alert, onRing: options.onRing });
  deps.current = { translate, alert, onRing: options.onRing };
  const { approval, ask } = useMediaApproval();
  const credentials = useQuery({
    queryKey: ['dialer', 'credentials', options.ownNumber],
    queryFn: () => dialerApi.credentials(),
    staleTime: Number.POSITIVE_INFINITY,
    retry: 2,
  });

  // createPhone reads the credentials of the render that starts the phone.
  const credentialsRef = useRef(credentials.data);
  credentialsRef.current = credentials.data;
  const proxyHost = useRef(options.proxyHost);
  proxyHost.current = options.proxyHost;

  const [engine] = useState(
    () =>
      new DialerEngine({
        ownNumber: options.ownNumber,
        api: dialerApi,
        ring: new RingTone(),
        createPhone: (events) => {
          const c = credentialsRef.current;
          if (!c) throw new Error('no dialer credentials');
          const socketUrl = c.ws_url || sipSocketUrl(proxyHost.current ?? c.domain, window.location.protocol, DIALER.secureWebSocketPort);
          return new SipPhone({ number: c.number, password: c.password, domain: c.domain, displayName: c.name, socketUrl }, events);
        },
        notify: (call) => {
          deps.current.onRing();
          const t = deps.current.translate;
          const who = call.info?.user ? `${call.info.user} (${call.number})` : call.number;
          return notifyIncoming(
            {
              title: t(call.sosCall ? 'dialer.notification.sos' : 'dialer.notification.incoming'),
              body: who,
              tag: `call-${call.speechId}`,
            },
            () => {
              window.focus();
              deps.current.onRing();
            },
          );
        },
        onError: (error) => deps.current.alert.error(error),
      }),
  );
  const ready =
    Boolean(credentials.data) &&
    canStartPhone({ sipNumber: options.ownNumber, proxyHost: options.proxyHost, mediaApproved: approval === 'approved' });
  useEffect(() => {
    if (!ready) return;
    engine.start();
    return () => engine.stop();
  }, [ready, engine]);

  useLiveTopic(topics.callsManagement(options.ownNumber), (message) => {
    if (message.event !== REALTIME_EVENTS.callUpdated) return;
    const parsed = CallRecordSchema.safeParse(message.data);
    if (parsed.success) engine.serverUpdate(parsed.data);
  });

  const snapshot = useSyncExternalStore(engine.subscribe, engine.get);
  return { engine, snapshot, approval, askMedia: ask, credentialsError: credentials.error };
}

/** Re-renders every second while `on` (the call timer, spec comms §9). */
export function useTick(on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    const t = setInterval(() => setNow(Date.now()), DIALER.callTimerTickMs);
    return () => clearInterval(t);
  }, [on]);
  return now;
}

/** Shows a failed query's error once (the handled-error display of spec comms §8). */
export function useReportError(error: unknown): void {
  const alert = useAlert();
  const report = useRef(alert.error);
  report.current = alert.error;
  useEffect(() => {
    if (error) report.current(error);
  }, [error]);
}
