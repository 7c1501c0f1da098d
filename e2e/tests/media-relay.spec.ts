// A door panel of plain RTP (SIPp playing a recorded voice) calls a concierge whose browser speaks
// WebRTC; rtpengine relays between them, and the browser hears the panel: bytes and an audio level
// in the WebRTC statistics of the call.
import type { Page } from '@playwright/test';
import { ADMIN, Api, expect, test } from './support/console';
import { callCard, groupOf, newNumber, ringing, softphone, withFakeMedia } from './support/dialer';
import { type Rtpengine, rtpengineInstalled, startRtpengine } from './support/rtpengine';
import { sippPanel } from './support/sipp';

test.use(withFakeMedia);

test.skip(!rtpengineInstalled(), 'needs rtpengine (Debian package rtpengine-daemon): /usr/bin/rtpengine is missing');

let rtpengine: Rtpengine | null = null;
test.beforeAll(async () => {
  rtpengine = await startRtpengine();
  // The server found no relay when it started and pings it each second until it answers.
  await new Promise((resolve) => setTimeout(resolve, 2500));
});
test.afterAll(async () => {
  await rtpengine?.stop();
});

/** Keeps every RTCPeerConnection the page creates (JsSIP's session.connection) where the test can read its stats. */
async function watchPeerConnections(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { RTCPeerConnection: typeof RTCPeerConnection; peerConnections: RTCPeerConnection[] };
    const Original = w.RTCPeerConnection;
    w.peerConnections = [];
    w.RTCPeerConnection = class extends Original {
      constructor(config?: RTCConfiguration) {
        super(config);
        w.peerConnections.push(this);
      }
    };
  });
}

/** The audio the page receives: inbound-rtp bytes and the level of what plays. */
async function inboundAudio(page: Page): Promise<{ bytesReceived: number; audioLevel: number }> {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { peerConnections: RTCPeerConnection[] }).peerConnections;
    let bytesReceived = 0;
    let audioLevel = 0;
    for (const pc of pcs) {
      const stats = await pc.getStats();
      stats.forEach((s: { type: string; kind?: string; bytesReceived?: number; audioLevel?: number }) => {
        if (s.type !== 'inbound-rtp' || s.kind !== 'audio') return;
        bytesReceived += s.bytesReceived ?? 0;
        audioLevel = Math.max(audioLevel, s.audioLevel ?? 0);
      });
    }
    return { bytesReceived, audioLevel };
  });
}

test('a concierge answers a plain-RTP door panel in the browser and hears it through the media relay', async ({ browser, request }) => {
  test.setTimeout(90_000);
  const admin = await Api.signIn(request, ADMIN);
  const domainId = await groupOf(admin);
  const stamp = Date.now().toString(36).toUpperCase();
  const device = await admin.call<{ id: number }>('PUT', '/devices', {
    name: `Gate ${stamp}`,
    model: 'AP-100',
    serial_number: `RLY${stamp}`,
    domain_id: domainId,
  });
  const panelNumber = newNumber('6');
  const panelPassword = `Panel${panelNumber}Pw`;
  await admin.call('PUT', '/sip-numbers', { number: panelNumber, password: panelPassword, domain_id: domainId, device_id: device.id });
  const concierge = await softphone(browser, admin, `Rita Relay ${Date.now()}`, [
    'can_call_all',
    'can_receive_calls_as_concierge',
    'can_call_panel',
  ]);
  await watchPeerConnections(concierge.page);

  const panel = await sippPanel('panel-audio.xml', { caller: panelNumber, password: panelPassword, callee: concierge.number });
  try {
    await expect(ringing(concierge.page)).toBeVisible({ timeout: 15_000 });
    await callCard(concierge.page).getByRole('button', { name: 'Answer' }).click();
    await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'active');

    // The panel's voice arrives: RTP bytes, decoded to a level above silence.
    await expect.poll(async () => (await inboundAudio(concierge.page)).bytesReceived, { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await inboundAudio(concierge.page)).audioLevel, { timeout: 15_000 }).toBeGreaterThan(0);

    const { code, errors } = await panel.done;
    expect(code, errors).toBe(0);
    await expect(callCard(concierge.page)).toHaveAttribute('data-status', 'destroyed');
  } finally {
    panel.kill();
  }
});
