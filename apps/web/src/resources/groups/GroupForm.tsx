import {
  email,
  type Group,
  internationalPhone,
  ipWithPrefix,
  maxLength,
  NO_LOGIC_ADDRESS_TYPES,
  range,
  required,
  type Validator,
} from '@atrium/contract';
import { Alert, Box, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import {
  ArrayInput,
  AutocompleteInput,
  BooleanInput,
  FormDataConsumer,
  NumberInput,
  ReferenceInput,
  SaveButton,
  SelectInput,
  SimpleFormIterator,
  TabbedForm,
  TextArrayInput,
  TextInput,
  Toolbar,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { SELF_DOMAIN_SECTIONS } from '../../app/action-rules';
import { GroupInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { useDomainTypes } from '../../app/kit/StructureDialogs';
import { useActions } from '../../app/kit/useActions';
import { useSessionData } from '../../app/SessionContext';
import { INTEGRATIONS_PERMISSIONS, IntegrationsSection } from '../integrations/IntegrationsPage';
import { useGroupAccess } from './access';
import { GroupDeleteButton } from './GroupDeleteButton';
import { GroupLogo } from './GroupLogo';
import { GroupUsers } from './GroupUsers';
import { dateToSeconds, secondsToDate } from './transform';

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);

/** Each internal subnetwork is an IP with a bit prefix, and may be listed only once. */
export const subnetworks: Validator = (value) => {
  if (!Array.isArray(value)) return undefined;
  const seen = new Set<string>();
  for (const v of value) {
    const error = ipWithPrefix(v);
    if (error) return error;
    const key = String(v).trim();
    if (seen.has(key)) return { message: 'validation.unique', args: {} };
    seen.add(key);
  }
  return undefined;
};

const NOTIFY_PERIODS = ['everyday', 'weekly', 'monthly', 'never'].map((id) => ({ id, name: `groups.notify_periods.${id}` }));
const byName = (q: string) => (q ? { 'name@has': q } : {});

/** The code of the domain type with this id, for the rules that depend on it (no logical address for 5). */
export function useTypeCode() {
  const types = useDomainTypes();
  return (typeId: unknown) => types.data?.find((t) => t.id === Number(typeId))?.type ?? null;
}

/**
 * The group form of create and edit, in the tabs of the spec's edit page. On edit it follows the
 * action rules and the group's can_edit / can_delete: each tab is read-only unless the user may edit
 * the group or manage that part of their own group; the parent changes only with an edit-groups
 * permission; delete only when allowed.
 */
export function GroupForm({ mode, notices }: { mode: 'create' | 'edit'; notices?: ReactNode }) {
  const translate = useTranslate();
  const record = useRecordContext<Group>();
  const types = useDomainTypes();
  const typeCode = useTypeCode();
  const { can } = useActions();
  const access = useGroupAccess(mode);
  const ro = {
    general: !access.sections.general,
    white_label: !access.sections.white_label,
    guest_access: !access.sections.guest_access,
    notifications: !access.sections.notifications,
    licenses: !access.licenses,
  };
  const canSave = SELF_DOMAIN_SECTIONS.some((s) => access.sections[s]) || access.licenses;
  const session = useSessionData();
  /** A user who may only add groups below their own must pick a parent. */
  const parentRequired = mode === 'create' && !can('groups.create_root');
  const toolbar = (
    <Toolbar sx={{ justifyContent: 'space-between' }}>
      {canSave ? <SaveButton /> : <span />}
      {mode === 'edit' && access.delete ? <GroupDeleteButton /> : null}
    </Toolbar>
  );

  return (
    <TabbedForm toolbar={canSave || access.delete ? toolbar : false} syncWithLocation={false} warnWhenUnsavedChanges>
      <TabbedForm.Tab label="groups.tabs.general">
        {canSave ? null : <ReadOnlyNotice />}
        {notices}
        <Grid>
          <TextInput source="name" validate={[required, maxLength(255)]} readOnly={ro.general} />
          <GroupInput
            source="parent_id"
            label="resources.groups.fields.parent_id"
            emptyText="groups.root"
            readOnly={!access.edit}
            validate={parentRequired ? required : undefined}
          />
          <SelectInput
            source="domain_type_id"
            choices={types.data ?? []}
            emptyText="groups.no_type"
            isPending={types.isPending}
            readOnly={ro.general}
          />
          <FormDataConsumer>
            {({ formData }) => {
              const none = NO_LOGIC_ADDRESS_TYPES.includes(typeCode(formData.domain_type_id) ?? -1);
              return (
                <NumberInput
                  source="logic_address"
                  // NumberInput is small and without margin by default; its neighbours are neither.
                  size="medium"
                  margin="dense"
                  disabled={none}
                  readOnly={ro.general}
                  helperText={none ? 'groups.no_logic_address' : undefined}
                  validate={range(0, 999_999_999)}
                />
              );
            }}
          </FormDataConsumer>
        </Grid>
        <TextInput source="description" multiline minRows={2} fullWidth validate={maxLength(1000)} readOnly={ro.general} />
        <TextArrayInput source="internal_subnetworks" validate={subnetworks} fullWidth helperText="10.0.0.0/8" readOnly={ro.general} />
        <BooleanInput source="is_resident_phonebook_enabled" readOnly={ro.general} />
      </TabbedForm.Tab>

      <TabbedForm.Tab label="groups.tabs.white_label">
        <BooleanInput source="whitelabel_settings.is_enabled" readOnly={ro.white_label} />
        {mode === 'edit' && record ? <GroupLogo group={record} readOnly={!access.logo} /> : null}
        <Grid>
          <TextInput source="whitelabel_settings.name" validate={maxLength(255)} readOnly={ro.white_label} />
          <TextInput source="whitelabel_settings.address" validate={maxLength(255)} readOnly={ro.white_label} />
          <TextInput source="whitelabel_settings.email" validate={[email, maxLength(255)]} readOnly={ro.white_label} />
          <TextInput source="whitelabel_settings.phone" validate={[internationalPhone, maxLength(32)]} readOnly={ro.white_label} />
        </Grid>
      </TabbedForm.Tab>

      <TabbedForm.Tab label="groups.tabs.guest_access">
        <Grid>
          <NumberInput source="guest_identifier_limits.max_passes_count" validate={range(0, 1_000_000)} readOnly={ro.guest_access} />
          <NumberInput source="guest_identifier_limits.max_period_days" validate={range(0, 36_500)} readOnly={ro.guest_access} />
        </Grid>
      </TabbedForm.Tab>

      <TabbedForm.Tab label="groups.tabs.notifications">
        <ArrayInput source="device_status_notify">
          <SimpleFormIterator inline disableReordering disabled={ro.notifications}>
            <ReferenceInput source="user_id" reference="users" sort={{ field: 'name', order: 'ASC' }}>
              <AutocompleteInput
                label="resources.groups.fields.user_id"
                optionText={(u: { name?: string; login?: string }) => (u ? `${u.name ?? ''} (${u.login ?? ''})` : '')}
                filterToQuery={byName}
                validate={required}
                sx={{ minWidth: 260 }}
                readOnly={ro.notifications}
              />
            </ReferenceInput>
            <BooleanInput
              source="notify_about_offline_device"
              label="resources.groups.fields.notify_about_offline_device"
              readOnly={ro.notifications}
            />
            <BooleanInput
              source="notify_about_device_task_failed"
              label="resources.groups.fields.notify_about_device_task_failed"
              readOnly={ro.notifications}
            />
          </SimpleFormIterator>
        </ArrayInput>
      </TabbedForm.Tab>

      {mode === 'edit' ? (
        <TabbedForm.Tab label="groups.tabs.licenses">
          {record?.license_info === null ? (
            <Alert severity="info">{translate('groups.licenses_hidden')}</Alert>
          ) : (
            <>
              {notices}
              <BooleanInput source="license_info.is_enabled" readOnly={ro.licenses} />
              <Stack direction={{ xs: 'column', md: 'row' }} sx={{ gap: 2 }}>
                <BooleanInput source="license_info.notifications.is_active" readOnly={ro.licenses} />
                <SelectInput source="license_info.notifications.period" choices={NOTIFY_PERIODS} readOnly={ro.licenses} />
                <NumberInput source="license_info.notifications.notify_before" validate={range(0, 365)} readOnly={ro.licenses} />
              </Stack>
              <ArrayInput source="license_info.licenses">
                <SimpleFormIterator inline disableReordering disabled={ro.licenses}>
                  <TextInput
                    source="type"
                    label="resources.groups.fields.license.type"
                    validate={[required, maxLength(64)]}
                    readOnly={ro.licenses}
                  />
                  <NumberInput
                    source="quantity"
                    label="resources.groups.fields.license.quantity"
                    validate={range(0, 1_000_000_000)}
                    readOnly={ro.licenses}
                  />
                  <TextInput
                    source="period.from"
                    type="date"
                    label="resources.groups.fields.license.period_from"
                    format={secondsToDate}
                    parse={(v: string) => dateToSeconds(v, 'from')}
                    slotProps={{ inputLabel: { shrink: true } }}
                    readOnly={ro.licenses}
                  />
                  <TextInput
                    source="period.to"
                    type="date"
                    label="resources.groups.fields.license.period_to"
                    format={secondsToDate}
                    parse={(v: string) => dateToSeconds(v, 'to')}
                    slotProps={{ inputLabel: { shrink: true } }}
                    readOnly={ro.licenses}
                  />
                  <BooleanInput source="is_active" label="resources.groups.fields.license.is_active" readOnly={ro.licenses} />
                  <BooleanInput
                    source="is_device_license"
                    label="resources.groups.fields.license.is_device_license"
                    readOnly={ro.licenses}
                  />
                  <BooleanInput
                    source="restrict_period.is_active"
                    label="resources.groups.fields.license.restrict"
                    readOnly={ro.licenses}
                  />
                </SimpleFormIterator>
              </ArrayInput>
            </>
          )}
        </TabbedForm.Tab>
      ) : null}

      {mode === 'edit' && record ? (
        <TabbedForm.Tab label="groups.tabs.users">
          <Typography variant="body2" color="text.secondary">
            {translate('groups.users_hint')}
          </Typography>
          <GroupUsers groupId={record.id} />
        </TabbedForm.Tab>
      ) : null}

      {/* integrations with Axxon One (issue 14): the spec manages a group's integrations here */}
      {mode === 'edit' && record && INTEGRATIONS_PERMISSIONS.some((p) => session.can(p)) ? (
        <TabbedForm.Tab label="groups.tabs.integrations">
          <IntegrationsSection scope={record.id} />
        </TabbedForm.Tab>
      ) : null}
    </TabbedForm>
  );
}
