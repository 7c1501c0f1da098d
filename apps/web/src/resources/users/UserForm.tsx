import {
  email,
  IDENTIFIER_FORMATS,
  internationalPhone,
  maxLength,
  minLength,
  PASSWORD_MIN_LENGTH,
  required,
  TIME_FORMATS,
  type User,
  usernameRequired,
} from '@atrium/contract';
import { Box, Divider, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import {
  BooleanInput,
  DeleteWithConfirmButton,
  FormDataConsumer,
  PasswordInput,
  SaveButton,
  SelectInput,
  SimpleForm,
  TextInput,
  Toolbar,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { GroupsInput } from '../../app/kit/GroupPicker';
import { ReadOnlyNotice } from '../../app/kit/RecordPage';
import { useAvailableRoles } from '../../app/kit/StructureDialogs';
import { TimeZoneInput } from '../../app/kit/TimeZoneInput';
import { useActions } from '../../app/kit/useActions';
import { useUserAccess } from './access';
import { changesOwnEmail } from './transform';

const Grid = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, columnGap: 2, width: '100%' }}>{children}</Box>
);

const Section = ({ title }: { title: string }) => {
  const translate = useTranslate();
  return (
    <>
      <Divider sx={{ width: '100%', my: 1 }} />
      <Typography variant="h6" component="h2" gutterBottom>
        {translate(title)}
      </Typography>
    </>
  );
};

// The login may hold letters, digits and . @ + - _ as the server accepts them.
const loginChars = (value: unknown) =>
  typeof value !== 'string' || /^[\w.@+-]*$/.test(value.trim())
    ? undefined
    : { message: 'validation.alphanumeric_dash_underscore', args: {} };

/**
 * The signed-in user's current password, asked for (and sent) only while they change their own
 * e-mail on their own record: the server wants it then. Someone else's e-mail needs none.
 */
function CurrentPasswordInput() {
  const record = useRecordContext<User>();
  const { me } = useActions();
  return (
    <FormDataConsumer>
      {({ formData }) =>
        changesOwnEmail(formData.email, record, me.userId) ? (
          <PasswordInput
            source="password"
            label="users.current_password"
            helperText="users.current_password_hint"
            validate={required}
            autoComplete="current-password"
            // react-admin's PasswordInput is small by default; the fields beside it are not.
            size="medium"
            // Hidden again, the field forgets what was typed: it shows empty each time it appears.
            shouldUnregister
          />
        ) : null
      }
    </FormDataConsumer>
  );
}

/**
 * The user form of create and edit: account, role (only roles the signed-in user may assign, plus the
 * user's current one), at least one group, group-admin flag, contacts and formats. On edit it follows
 * the action rules and the user's can_edit / can_delete: read-only without an edit permission over
 * the user; on one's own record with edit-own-profile, the administrator's fields (login, role,
 * groups, flags) are read-only; delete when allowed. Changing one's own e-mail asks for the current password.
 */
export function UserForm({ mode, header }: { mode: 'create' | 'edit'; header?: ReactNode }) {
  const translate = useTranslate();
  const record = useRecordContext<User>();
  const access = useUserAccess();
  const available = useAvailableRoles();
  const roles = [...(available.data ?? [])];
  if (record?.role_info && !roles.some((r) => r.id === record.role_info?.id)) roles.push(record.role_info);
  const edit = mode === 'create' ? 'all' : (access?.edit ?? 'none');
  const readOnly = edit === 'none';
  /** The administrator's fields (action-rules USER_ADMIN_FIELDS). */
  const adminOnly = edit !== 'all';
  const deletable = mode === 'edit' && !!access?.delete;

  return (
    <SimpleForm
      warnWhenUnsavedChanges
      disabled={readOnly}
      toolbar={
        readOnly && !deletable ? (
          false
        ) : (
          <Toolbar sx={{ justifyContent: 'space-between' }}>
            {readOnly ? <span /> : <SaveButton />}
            {deletable ? (
              <DeleteWithConfirmButton
                mutationMode="pessimistic"
                confirmTitle={translate('users.actions.delete')}
                confirmContent={translate('users.delete_confirm', { name: record?.name || record?.login || '' })}
              />
            ) : null}
          </Toolbar>
        )
      }
      sx={{ maxWidth: 1000 }}
    >
      {readOnly ? <ReadOnlyNotice /> : null}
      {header}
      <Typography variant="h6" component="h2" gutterBottom>
        {translate('users.account')}
      </Typography>
      <Grid>
        <TextInput source="login" validate={[usernameRequired, maxLength(64), loginChars]} autoComplete="off" readOnly={adminOnly} />
        <TextInput source="name" validate={maxLength(255)} />
        <TextInput source="email" type="email" validate={[email, maxLength(255)]} />
        <TextInput source="description" validate={maxLength(1000)} />
        {mode === 'create' ? (
          <PasswordInput source="password" validate={minLength(PASSWORD_MIN_LENGTH)} autoComplete="new-password" size="medium" />
        ) : (
          <CurrentPasswordInput />
        )}
      </Grid>
      {mode === 'create' ? <BooleanInput source="send_registration_link" /> : null}

      <Section title="users.access" />
      <Grid>
        <SelectInput source="role" choices={roles} emptyText="users.no_role" isPending={available.isPending} readOnly={adminOnly} />
        <BooleanInput source="is_group_admin" sx={{ alignSelf: 'center' }} readOnly={adminOnly} />
      </Grid>
      <GroupsInput source="domains" label="resources.users.fields.domains" validate={required} fullWidth readOnly={adminOnly} />
      <BooleanInput source="elevator_access_disabled" readOnly={adminOnly} />

      <Section title="users.contacts" />
      <Grid>
        <TextInput source="profile.phone" validate={internationalPhone} />
        <TextInput source="profile.address" validate={maxLength(255)} />
        <TimeZoneInput source="profile.time_zone" label="resources.users.fields.profile.time_zone" />
        <TextInput source="profile.country_code" validate={maxLength(8)} />
        <SelectInput
          source="profile.identifier_format"
          choices={IDENTIFIER_FORMATS.map((f) => ({ id: f, name: `users.identifier_formats.${f}` }))}
          emptyText="app.none"
        />
        <SelectInput
          source="profile.time_format"
          choices={TIME_FORMATS.map((f) => ({ id: f, name: f }))}
          translateChoice={false}
          emptyText="app.none"
        />
      </Grid>
      {/* BooleanInput follows its own readOnly, not the disabled form. */}
      <BooleanInput source="profile.use_phone_in_forward" readOnly={readOnly} />
    </SimpleForm>
  );
}
