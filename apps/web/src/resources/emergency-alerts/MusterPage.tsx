import { EMERGENCY_DEFAULTS, type Muster } from '@atrium/contract';
import DownloadIcon from '@mui/icons-material/Download';
import PrintIcon from '@mui/icons-material/Print';
import { Box, Button, Card, GlobalStyles, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Form, FunctionField, NumberInput, Title, useDataProvider, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDateTime, useFormat } from '../../app/format';
import { downloadFile } from '../../app/kit/download';
import { GroupInput } from '../../app/kit/GroupPicker';
import { EmptyState } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { NotAllowed } from '../../app/kit/RecordPage';
import { RecordsList } from '../../app/kit/RecordsList';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { EMERGENCY_API } from './shared';

// On paper only the list: the console's bars, menu and the form stay on screen.
const printStyles = (
  <GlobalStyles
    styles={{
      '@media print': {
        'header, nav, .RaSidebar-root, .MuiDrawer-root, .RaAppBar-root, [data-no-print]': { display: 'none !important' },
        'main, .RaLayout-content': { margin: '0 !important', padding: '0 !important' },
      },
    }}
  />
);

type Entry = Muster['entries'][number];

/** /emergency-muster: who is inside a group's buildings, for an evacuation; printable and downloadable. */
export function MusterPage() {
  const translate = useTranslate();
  const { locale } = useFormat();
  const dp = useDataProvider<AtriumDataProvider>();
  const notice = useAlert();
  const { can } = useSessionData();
  const allowed = can('can_view_emergency_alerts') && can('can_view_access_control_events');
  const [query, setQuery] = useState<{ domain_id: number; hours: number } | null>(null);
  const muster = useQuery({
    queryKey: ['emergency', 'muster', query],
    queryFn: async () => (await dp.request<{ data: Muster }>(`/${EMERGENCY_API}/muster`, { query: query ?? {} })).data,
    enabled: !!query && allowed,
    refetchInterval: 15_000,
  });
  if (!allowed) return <NotAllowed />;
  const m = muster.data;
  const when = (iso: string) => formatDateTime(iso, locale);
  return (
    <Box sx={{ p: 2, display: 'grid', gap: 2 }}>
      {printStyles}
      <Title title={translate('emergency.muster.title')} />
      <Typography variant="h5" component="h1" sx={{ display: 'none', '@media print': { display: 'block' } }}>
        {translate('emergency.muster.title')}
      </Typography>
      <Typography variant="body2" color="text.secondary" data-no-print>
        {translate('emergency.muster.hint')}
      </Typography>
      <Box data-no-print>
        <Form
          defaultValues={{ hours: EMERGENCY_DEFAULTS.muster_hours }}
          onSubmit={(v: Record<string, unknown>) => {
            const domainId = Number(v.domain_id);
            if (domainId) setQuery({ domain_id: domainId, hours: Number(v.hours) || EMERGENCY_DEFAULTS.muster_hours });
          }}
        >
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'flex-start' } }}>
            <GroupInput source="domain_id" label="emergency.muster.group" sx={{ minWidth: 320 }} />
            <NumberInput
              source="hours"
              label="emergency.muster.hours"
              min={1}
              max={EMERGENCY_DEFAULTS.muster_hours_max}
              sx={{ width: 160 }}
            />
            <Button type="submit" variant="contained" sx={{ mt: 1 }}>
              {translate('emergency.muster.show')}
            </Button>
          </Stack>
        </Form>
      </Box>
      {!query ? (
        <Typography variant="body2" color="text.secondary">
          {translate('emergency.muster.pick_group')}
        </Typography>
      ) : m ? (
        <>
          <Stack direction="row" spacing={2} sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}>
            <Box>
              <Typography variant="h6" component="h2" role="status" data-testid="muster-count">
                {translate('emergency.muster.count', { smart_count: m.total, group: m.domain_name, since: when(m.since) })}
              </Typography>
              <Typography variant="body2" color="text.secondary">
                {translate('emergency.muster.generated', { at: when(m.generated_at) })}
              </Typography>
            </Box>
            <Stack direction="row" spacing={1} data-no-print>
              <Button startIcon={<PrintIcon />} onClick={() => window.print()}>
                {translate('emergency.muster.print')}
              </Button>
              <Button
                startIcon={<DownloadIcon />}
                onClick={() =>
                  void downloadFile(`/${EMERGENCY_API}/muster/export`, { ...query, export_format: 'csv' }, 'muster.csv').catch((e) =>
                    notice.error(e),
                  )
                }
              >
                {translate('emergency.muster.download')}
              </Button>
            </Stack>
          </Stack>
          {/* Every person on one page: the list is printed and read out at the assembly point. */}
          <Card variant="outlined">
            <RecordsList
              records={m.entries.map((e, i) => ({ ...e, id: i + 1 }))}
              resource="emergency-muster"
              perPage={Math.max(m.entries.length, 1)}
              primary="user_name"
              label={translate('emergency.muster.title')}
              empty={<EmptyState text={translate('emergency.muster.empty')} />}
            >
              <FunctionField source="id" label="#" sortable={false} render={(e: Entry & { id: number }) => e.id} />
              <FunctionField source="user_name" label="emergency.muster.person" render={(e: Entry) => e.user_name ?? '—'} />
              <FunctionField
                source="identifier_name"
                label="emergency.muster.identifier"
                render={(e: Entry) => e.identifier_name ?? e.value ?? '—'}
              />
              <FunctionField source="device_name" label="emergency.muster.door" render={(e: Entry) => e.device_name ?? e.device_id} />
              <DateTimeField source="entered_at" label="emergency.muster.entered" />
              <FunctionField
                source="direction"
                label="emergency.muster.direction"
                render={(e: Entry) => translate(e.direction ? 'emergency.muster.in' : 'emergency.muster.unknown_direction')}
              />
            </RecordsList>
          </Card>
        </>
      ) : null}
    </Box>
  );
}
