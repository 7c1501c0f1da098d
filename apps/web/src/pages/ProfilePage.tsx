import {
  IDENTIFIER_FORMATS,
  internationalPhone,
  matchesField,
  maxLength,
  minLength,
  PASSWORD_MIN_LENGTH,
  type Profile,
  required,
  TIME_FORMATS,
} from '@atrium/contract';
import LockIcon from '@mui/icons-material/Lock';
import { Box, Button, Card, CardActions, CardContent, Divider, Grid, Stack, Typography } from '@mui/material';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  Form,
  FunctionField,
  Labeled,
  PasswordInput,
  SaveButton,
  SelectInput,
  TextField,
  TextInput,
  Title,
  useLocaleState,
  useTranslate,
} from 'react-admin';
import { PROFILE_KEY } from '../app/authProvider';
import { http } from '../app/http';
import { FormDialog } from '../app/kit/FormDialog';
import { TimeZoneInput } from '../app/kit/TimeZoneInput';
import { useActions } from '../app/kit/useActions';
import { useSessionData } from '../app/SessionContext';
import { roleName } from '../app/seeded';
import { useAlert } from '../app/useAlert';
import { APP_LOCALES, isAppLocale } from '../i18n';
import { AvatarEditor } from './AvatarEditor';
import { MobileAppButton } from './MobileAppDialog';
import { mayEditOwnRecord, type ProfileForm, profileBody, toForm } from './profileForm';
import { TwoFactorSection } from './TwoFactorSection';

function ChangePassword() {
  const translate = useTranslate();
  const alert = useAlert();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button startIcon={<LockIcon />} onClick={() => setOpen(true)}>
        {translate('profile.change_password')}
      </Button>
      <FormDialog<{ old: string; new: string; confirm: string }>
        open={open}
        title={translate('profile.change_password')}
        onClose={() => setOpen(false)}
        onApprove={async (v) => {
          try {
            await http.request('/profile/password', { method: 'POST', body: { old: v.old, new: v.new } });
            alert.done();
            setOpen(false);
          } catch (error) {
            alert.error(error);
          }
        }}
      >
        <PasswordInput
          source="old"
          label={translate('profile.old_password')}
          validate={required}
          autoComplete="current-password"
          fullWidth
        />
        <PasswordInput
          source="new"
          label={translate('profile.new_password')}
          validate={[required, minLength(PASSWORD_MIN_LENGTH)]}
          autoComplete="new-password"
          fullWidth
        />
        <PasswordInput
          source="confirm"
          label={translate('profile.confirm_password')}
          validate={[required, matchesField('new')]}
          autoComplete="new-password"
          fullWidth
        />
      </FormDialog>
    </>
  );
}

/** The user's own profile (spec core §3): account, picture, contacts and formats, password. */
export function ProfilePage() {
  const translate = useTranslate();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const { profile, settings } = useSessionData();
  const [, setLocale] = useLocaleState();
  const { permissions, me } = useActions();
  // Name and contacts are the person's record (the server's rule); language and formats are their own choice.
  const recordEditable = mayEditOwnRecord(permissions, me);
  // Read-only fields are neither sent nor checked: a stored value never blocks saving the rest.
  const recordField = {
    disabled: !recordEditable,
    helperText: recordEditable ? undefined : translate('profile.read_only_hint'),
    fullWidth: true,
  };
  const save = useMutation({
    mutationFn: (v: ProfileForm) => http.data<Profile>('/profile', { method: 'PATCH', body: profileBody(v, recordEditable) }),
    onSuccess: (updated, v) => {
      queryClient.setQueryData(PROFILE_KEY, updated);
      alert.done();
      if (isAppLocale(v.locale)) setLocale(v.locale);
    },
    onError: alert.error,
  });

  return (
    <Box sx={{ maxWidth: 900 }}>
      <Title title={translate('profile.title')} />
      <Card>
        <Form
          record={toForm(profile)}
          onSubmit={(v: Record<string, unknown>) => save.mutate(v as unknown as ProfileForm)}
          key={profile.id}
          warnWhenUnsavedChanges
        >
          <CardContent>
            <Grid container spacing={3}>
              <Grid size={{ xs: 12, md: 4 }}>
                <Typography variant="subtitle1" component="h2" gutterBottom>
                  {translate('profile.avatar')}
                </Typography>
                <AvatarEditor url={profile.avatar_url} name={profile.name} />
                <Stack spacing={1.5} sx={{ mt: 3 }}>
                  <Labeled label={translate('profile.login')}>
                    <TextField source="login" record={profile} />
                  </Labeled>
                  <Labeled label={translate('profile.email')}>
                    <TextField source="email" record={profile} emptyText="—" />
                  </Labeled>
                  <Labeled label={translate('profile.role')}>
                    <FunctionField
                      source="role.name"
                      record={profile}
                      render={() => (profile.role ? roleName(profile.role, translate) : '—')}
                    />
                  </Labeled>
                  {profile.profile.sip_number ? (
                    <Labeled label={translate('profile.sip_number')}>
                      <TextField source="profile.sip_number" record={profile} />
                    </Labeled>
                  ) : null}
                </Stack>
              </Grid>
              <Grid size={{ xs: 12, md: 8 }}>
                <Typography variant="subtitle1" component="h2" gutterBottom>
                  {translate('profile.main')}
                </Typography>
                <TextInput
                  source="name"
                  label={translate('profile.name')}
                  validate={recordEditable ? [required, maxLength(255)] : undefined}
                  {...recordField}
                />
                <SelectInput
                  source="locale"
                  label={translate('profile.locale')}
                  choices={APP_LOCALES.map((l) => ({ id: l, name: translate(`toolbar.languages.${l}`) }))}
                  validate={required}
                  fullWidth
                />
                <Divider sx={{ my: 2 }} />
                <Typography variant="subtitle1" component="h2" gutterBottom>
                  {translate('profile.contacts')}
                </Typography>
                <TextInput
                  source="address"
                  label={translate('profile.address')}
                  validate={recordEditable ? maxLength(255) : undefined}
                  {...recordField}
                />
                <TextInput
                  source="phone"
                  label={translate('profile.phone')}
                  validate={recordEditable ? [internationalPhone, maxLength(32)] : undefined}
                  {...recordField}
                />
                <TimeZoneInput source="time_zone" label={translate('profile.time_zone')} fullWidth />
                <SelectInput
                  source="time_format"
                  label={translate('profile.time_format')}
                  choices={TIME_FORMATS.map((f) => ({ id: f, name: f }))}
                  fullWidth
                />
                <SelectInput
                  source="identifier_format"
                  label={translate('profile.identifier_format')}
                  choices={IDENTIFIER_FORMATS.map((f) => ({ id: f, name: translate(`profile.identifier_formats.${f}`) }))}
                  validate={required}
                  fullWidth
                />
              </Grid>
            </Grid>
          </CardContent>
          <CardActions sx={{ justifyContent: 'flex-end', px: 2 }}>
            <SaveButton label={translate('profile.save')} />
          </CardActions>
        </Form>
        <Divider />
        {/* Outside the profile form: a dialog's submit would otherwise bubble into it through the portal. */}
        <CardActions sx={{ px: 2 }}>
          <ChangePassword />
          <MobileAppButton profile={profile} links={settings?.mobile_app ?? null} />
        </CardActions>
        {/* two-factor sign-in (issue 14) */}
        <Divider />
        <TwoFactorSection />
      </Card>
    </Box>
  );
}
