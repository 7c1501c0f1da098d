import { IP_BAN_CAUSES, IP_BLOCKING_DEFAULTS, IP_BLOCKING_SERVICES, type IpBlockingService } from '@atrium/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { parseAddresses, Services } from './IpBlockingPage';
import { en, ru } from './messages';

/** Every leaf's dotted path with its text. */
const leaves = (o: object, prefix = ''): [string, unknown][] =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));

const services: IpBlockingService[] = IP_BLOCKING_SERVICES.map((name) => ({
  name,
  ...IP_BLOCKING_DEFAULTS[name],
  banned_count: name === 'sip' ? 3 : 0,
  whitelist_count: 2,
}));

// No DOM in these tests (environment node): the card is rendered to HTML as the server would.
const render = (mayEdit: boolean) =>
  renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider('en')} store={memoryStore({ locale: 'en' })}>
        <QueryClientProvider client={new QueryClient()}>
          <Services services={services} mayEdit={mayEdit} />
        </QueryClientProvider>
      </AdminContext>
    </MemoryRouter>,
  );

describe('IP blocking page', () => {
  it('has every text in both languages, none empty, a name for every service and a text for every cause', () => {
    const [e, r] = [leaves(en), leaves(ru)];
    expect(r.map(([k]) => k)).toEqual(e.map(([k]) => k));
    for (const [k, v] of [...e, ...r]) expect(v, k).toMatch(/\S/);
    for (const s of IP_BLOCKING_SERVICES) {
      expect(en.ip_blocking.services.names[s], s).toBeTypeOf('string');
      expect(en.ip_blocking.services.descriptions[s], s).toBeTypeOf('string');
      const cause = IP_BAN_CAUSES[s] as keyof typeof en.ip_blocking.banned.causes;
      expect(en.ip_blocking.banned.causes[cause], cause).toBeTypeOf('string');
    }
  });

  it('splits the whitelist field into addresses and ranges, and names what is neither', () => {
    expect(parseAddresses('192.0.2.10, 10.0.0.0/8\n2001:db8::1;  ')).toEqual({
      ips: ['192.0.2.10', '10.0.0.0/8', '2001:db8::1'],
      invalid: [],
    });
    expect(parseAddresses('10.0.0.1 10.0.0.0/33 host.example')).toEqual({ ips: ['10.0.0.1'], invalid: ['10.0.0.0/33', 'host.example'] });
    expect(parseAddresses('  ')).toEqual({ ips: [], invalid: [] });
  });

  it('shows each service with its rule and counts; only those who may change it get live controls and Save', () => {
    const readOnly = render(false);
    for (const name of ['Console sign-in', 'API', 'SIP registration', 'Guest pages']) expect(readOnly).toContain(name);
    expect(readOnly).toContain('value="60"');
    const inputs = readOnly.match(/<input[^>]*>/g) ?? [];
    expect(inputs.length).toBeGreaterThanOrEqual(16);
    expect(inputs.every((i) => /\sdisabled=""/.test(i))).toBe(true);
    expect(readOnly).not.toContain('>Save<');
    const editable = render(true);
    expect((editable.match(/<input[^>]*>/g) ?? []).some((i) => /\sdisabled=""/.test(i))).toBe(false);
    expect(editable).toContain('Save');
  });
});
