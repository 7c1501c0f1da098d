import { emptyLicenseInfo, fullLicenseInfo } from '@atrium/contract';
import { describe, expect, it } from 'vitest';
import { callRefusal, canRemoveInterceptionGroup, canStartPhone, dialerVisible, interceptionRefusal, sipSocketUrl } from './rules';

describe('dialer rules', () => {
  it('shows the dialer only with SIP and web dialer licensed and a number', () => {
    const full = fullLicenseInfo();
    expect(dialerVisible({ serverLicense: full, userLicense: emptyLicenseInfo(), sipNumber: '100' })).toBe(true);
    expect(dialerVisible({ serverLicense: full, userLicense: null, sipNumber: null })).toBe(false);
    expect(dialerVisible({ serverLicense: full, userLicense: null, sipNumber: '  ' })).toBe(false);
    const noDialer = fullLicenseInfo();
    noDialer.sip.is_web_dialer_enabled = false;
    expect(dialerVisible({ serverLicense: noDialer, userLicense: emptyLicenseInfo(), sipNumber: '100' })).toBe(false);
    const noSip = fullLicenseInfo();
    noSip.sip.is_enabled = false;
    expect(dialerVisible({ serverLicense: noSip, userLicense: emptyLicenseInfo(), sipNumber: '100' })).toBe(false);
  });

  it('starts the phone only with a number, a proxy host and media approval', () => {
    expect(canStartPhone({ sipNumber: '100', proxyHost: 'pbx', mediaApproved: true })).toBe(true);
    expect(canStartPhone({ sipNumber: '100', proxyHost: '', mediaApproved: true })).toBe(false);
    expect(canStartPhone({ sipNumber: '100', proxyHost: 'pbx', mediaApproved: false })).toBe(false);
    expect(canStartPhone({ sipNumber: null, proxyHost: 'pbx', mediaApproved: true })).toBe(false);
  });

  it('refuses to call the own number', () => {
    expect(callRefusal(' 100 ', '100')).toBe('interface.unable_to_call_your_number');
    expect(callRefusal('101', '100')).toBeNull();
  });

  it('needs a group to start interception, and keeps own groups', () => {
    expect(interceptionRefusal(true, [])).toBe('validation.at_least_on_group_must_be_selected');
    expect(interceptionRefusal(true, [1])).toBeNull();
    expect(interceptionRefusal(false, [])).toBeNull();
    expect(canRemoveInterceptionGroup(5, [1, 2], false)).toBe(true);
    expect(canRemoveInterceptionGroup(1, [1, 2], false)).toBe(false);
    expect(canRemoveInterceptionGroup(5, [1, 2], true)).toBe(false);
  });

  it('builds the WebSocket URL of the proxy', () => {
    expect(sipSocketUrl('pbx.example', 'https:', 8443)).toBe('wss://pbx.example:8443');
    expect(sipSocketUrl('localhost:5066', 'http:', 8443)).toBe('ws://localhost:5066');
    expect(sipSocketUrl('wss://pbx.example/', 'https:', 8443)).toBe('wss://pbx.example:8443');
  });
});
