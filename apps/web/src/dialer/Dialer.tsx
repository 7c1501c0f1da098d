import { Component, type ReactNode, Suspense } from 'react';
import { lazyNamed } from '../app/lazy';
import { useSessionData } from '../app/SessionContext';
import { dialerVisible } from './rules';

// The phone (JsSIP and the panel) is its own chunk: neither the sign-in page nor users without a
// dialer load it.
const DialerRoot = lazyNamed(() => import('./DialerRoot'), 'DialerRoot');

/** A dialer that fails to load leaves the rest of the console alone (the button just does not show). */
class QuietBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? null : this.props.children;
  }
}

/**
 * The web dialer (spec comms §2): a floating button and its panel, shown only when SIP and the web
 * dialer are licensed and the profile has a number (spec comms §6). Mount it inside the floating
 * buttons' provider and the session's.
 */
export function Dialer() {
  const { profile, ruleContext } = useSessionData();
  const number = profile.profile.sip_number;
  if (!number || !dialerVisible({ serverLicense: ruleContext.serverLicense, userLicense: ruleContext.userLicense, sipNumber: number }))
    return null;
  return (
    <QuietBoundary key={number}>
      <Suspense fallback={null}>
        <DialerRoot />
      </Suspense>
    </QuietBoundary>
  );
}
