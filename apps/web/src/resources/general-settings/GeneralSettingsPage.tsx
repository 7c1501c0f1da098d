import type { AppleWalletSettings } from '@atrium/contract';
import SaveIcon from '@mui/icons-material/Save';
import { Alert, Box, Button, Card, CardContent, CircularProgress, Tab, Tabs } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ArrayInput, Form, PasswordInput, SimpleFormIterator, TextInput, Title, useDataProvider, useTranslate } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { FormSection } from '../../app/kit/FormSection';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { IntegrationsSection } from '../integrations/IntegrationsPage';
import { validateColor } from '../markers/MarkerForm';
import { MarkerList } from '../markers/MarkerPages';
import { type AppleWalletFormValues, walletBody, walletFormValues } from './appleWallet';
import { DeviceBackupTab } from './DeviceBackupTab';
import { BrokerTab, GeneralTab, PushTab, SipTab, WhiteLabelTab } from './ProjectSettingsTabs';
import { TermsTab } from './TermsTab';

const WALLET = '/settings/apple-wallet';
const twoColumns = { display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' } as const;
const L = (k: string) => `general_settings.apple_wallet.${k}`;

function AppleWalletTab() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const { can } = useSessionData();
  const readOnly = !can('can_change_project_settings');
  const query = useQuery({
    queryKey: ['settings', 'apple-wallet'],
    queryFn: async () => (await dp.request<{ data: AppleWalletSettings }>(WALLET)).data,
  });
  const save = useMutation({
    mutationFn: async (values: AppleWalletFormValues) =>
      (await dp.request<{ data: AppleWalletSettings }>(WALLET, { method: 'PATCH', body: walletBody(values) })).data,
    onSuccess: (data) => {
      queryClient.setQueryData(['settings', 'apple-wallet'], data);
      alert.done();
    },
    onError: (e) => alert.error(e),
  });
  if (query.isPending) return <CircularProgress aria-label={translate('app.loading')} />;
  if (query.isError) return <Alert severity="error">{translate('errors.default')}</Alert>;
  const s = query.data;
  return (
    <Form
      key={JSON.stringify(s)}
      defaultValues={walletFormValues(s)}
      onSubmit={async (values: Record<string, unknown>) => {
        await save.mutateAsync(values as AppleWalletFormValues).catch(() => undefined);
      }}
    >
      <Alert severity="info" sx={{ mb: 2 }}>
        {translate(L('intro'))}
      </Alert>
      {readOnly ? (
        <Alert severity="warning" sx={{ mb: 2 }}>
          {translate(L('read_only'))}
        </Alert>
      ) : null}
      <FormSection title={L('look')} />
      <Box sx={twoColumns}>
        <TextInput source="developer_name" label={L('developer_name')} readOnly={readOnly} />
        <TextInput source="barcode_alt_text" label={L('barcode_alt_text')} readOnly={readOnly} />
      </Box>
      <Box sx={{ ...twoColumns, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr 1fr' } }}>
        <TextInput source="background_color" type="color" label={L('background_color')} validate={validateColor} readOnly={readOnly} />
        <TextInput source="font_color" type="color" label={L('font_color')} validate={validateColor} readOnly={readOnly} />
        <TextInput
          source="developer_name_color"
          type="color"
          label={L('developer_name_color')}
          validate={validateColor}
          readOnly={readOnly}
        />
      </Box>
      <ArrayInput source="backfields" label={L('backfields')}>
        <SimpleFormIterator inline disableReordering disableAdd={readOnly} disableRemove={readOnly}>
          <TextInput source="name" label={L('backfield_name')} />
          <TextInput source="value" label={L('backfield_value')} sx={{ minWidth: 320 }} />
        </SimpleFormIterator>
      </ArrayInput>
      <FormSection title={L('signing')} hint={L('signing_hint')} />
      <Alert severity={s.is_configured ? 'success' : 'warning'} sx={{ mb: 2 }}>
        {translate(L(s.is_configured ? 'configured' : 'not_configured'))}
      </Alert>
      <Box sx={twoColumns}>
        <TextInput source="pass_type_identifier" label={L('pass_type_identifier')} readOnly={readOnly} autoComplete="off" />
        <TextInput source="team_identifier" label={L('team_identifier')} readOnly={readOnly} autoComplete="off" />
        <TextInput source="certificate" label={L('certificate')} multiline minRows={3} maxRows={8} readOnly={readOnly} />
        <TextInput source="wwdr_certificate" label={L('wwdr_certificate')} multiline minRows={3} maxRows={8} readOnly={readOnly} />
        <TextInput
          source="private_key"
          label={L('private_key')}
          multiline
          minRows={3}
          maxRows={8}
          readOnly={readOnly}
          autoComplete="off"
          helperText={s.has_private_key ? L('private_key_set') : false}
        />
        <PasswordInput
          source="private_key_passphrase"
          label={L('private_key_passphrase')}
          readOnly={readOnly}
          autoComplete="new-password"
          helperText={s.has_private_key ? L('passphrase_kept') : false}
        />
      </Box>
      {readOnly ? null : (
        <Button type="submit" variant="contained" startIcon={<SaveIcon />} disabled={save.isPending} sx={{ mt: 1 }}>
          {translate('ra.action.save')}
        </Button>
      )}
    </Form>
  );
}

const PROJECT_TABS = {
  general: () => <GeneralTab />,
  sip: () => <SipTab />,
  push: () => <PushTab />,
  broker: () => <BrokerTab />,
  white_label: () => <WhiteLabelTab />,
  terms: () => <TermsTab />,
};

type TabKey =
  | 'general'
  | 'sip'
  | 'push'
  | 'broker'
  | 'white_label'
  | 'terms'
  | 'apple_wallet'
  | 'markers'
  | 'integrations'
  | 'device_backup';

/** `/general-settings`: the project's settings (spec comms §3), one tab per part the user may see. */
export function GeneralSettingsPage() {
  const translate = useTranslate();
  const { can } = useSessionData();
  const settings = can('can_view_project_settings') || can('can_change_project_settings');
  const tabs: TabKey[] = [
    ...(settings ? (['general', 'sip', 'push', 'broker'] as const) : []),
    ...(settings || can('can_view_management_company_info') ? (['white_label'] as const) : []),
    ...(settings ? (['terms', 'apple_wallet'] as const) : []),
    ...(can('can_view_markers') || can('can_view_all_markers') ? (['markers'] as const) : []),
    // project-level integrations with Axxon One (issue 14)
    ...(settings ? (['integrations'] as const) : []),
    ...(can('can_import_device_backup') ? (['device_backup'] as const) : []),
  ];
  // The open tab is kept in the address (?tab=), so a reload or a shared link opens it again.
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') as TabKey | null;
  const setTab = (t: TabKey) => setParams({ tab: t }, { replace: true });
  const current = tab && tabs.includes(tab) ? tab : tabs[0];
  return (
    <Box>
      <Title title={translate('general_settings.title')} />
      <Tabs value={current ?? false} onChange={(_, v: TabKey) => setTab(v)} variant="scrollable" allowScrollButtonsMobile sx={{ mb: 2 }}>
        {tabs.map((t) => (
          <Tab key={t} value={t} label={translate(`general_settings.tabs.${t}`)} />
        ))}
      </Tabs>
      {current && current in PROJECT_TABS ? (
        <Card>
          <CardContent>{PROJECT_TABS[current as keyof typeof PROJECT_TABS]()}</CardContent>
        </Card>
      ) : null}
      {current === 'apple_wallet' ? (
        <Card>
          <CardContent>
            <AppleWalletTab />
          </CardContent>
        </Card>
      ) : null}
      {current === 'markers' ? <MarkerList embedded /> : null}
      {current === 'device_backup' ? (
        <Card>
          <CardContent>
            <DeviceBackupTab />
          </CardContent>
        </Card>
      ) : null}
      {current === 'integrations' ? (
        <Card>
          <CardContent>
            <IntegrationsSection scope="project" />
          </CardContent>
        </Card>
      ) : null}
    </Box>
  );
}
