import type { MailDelivery, User } from '@atrium/contract';
import MailIcon from '@mui/icons-material/ForwardToInbox';
import KeyIcon from '@mui/icons-material/Key';
import LockOpenIcon from '@mui/icons-material/LockOpen';
import PhoneIphoneIcon from '@mui/icons-material/PhoneIphone';
import { Button, Chip, Stack } from '@mui/material';
import { useCallback, useState } from 'react';
import { TopToolbar, useDataProvider, useRecordContext, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { formatDate, useFormat } from '../../app/format';
import { EditPage } from '../../app/kit/RecordPage';
import { useActions } from '../../app/kit/useActions';
import { useAlert } from '../../app/useAlert';
import { useUserAccess } from './access';
import { userPatch } from './transform';
import { ChangePasswordDialog, MobileClientsDialog, UserAvatar } from './UserDialogs';
import { UserForm } from './UserForm';

function UserTitle() {
  const translate = useTranslate();
  const record = useRecordContext<User>();
  return <span>{record ? translate('users.edit_title', { name: record.name || record.login }) : translate('users.title')}</span>;
}

function UserActions() {
  const translate = useTranslate();
  const alert = useAlert();
  const dp = useDataProvider<AtriumDataProvider>();
  const record = useRecordContext<User>();
  const access = useUserAccess();
  const [dialog, setDialog] = useState<'password' | 'mobile' | null>(null);
  const [sending, setSending] = useState(false);
  if (!record || !access) return <TopToolbar />;
  const sendLink = async () => {
    setSending(true);
    try {
      const { data } = await dp.request<{ data: MailDelivery }>(`/users/${record.id}/registration-link`, { method: 'POST' });
      // Without SMTP the mail is only kept in the outbox: say so instead of "on its way".
      if (data.mail_status === 'stored') alert.warning('users.actions.link_kept', { email: data.email }, 10_000);
      else alert.success('users.actions.link_sent', { email: data.email });
    } catch (error) {
      alert.error(error);
    } finally {
      setSending(false);
    }
  };
  const unlock = async () => {
    setSending(true);
    try {
      await dp.request(`/users/${record.id}/unlock`, { method: 'POST' });
      alert.success('users.actions.unlocked', { name: record.name || record.login });
    } catch (error) {
      alert.error(error);
    } finally {
      setSending(false);
    }
  };
  return (
    <TopToolbar>
      {access.sendRegistrationLink ? (
        <Button size="small" startIcon={<MailIcon />} onClick={sendLink} disabled={sending}>
          {translate('users.actions.send_link')}
        </Button>
      ) : null}
      {access.changePassword ? (
        <Button size="small" startIcon={<KeyIcon />} onClick={() => setDialog('password')}>
          {translate('users.actions.change_password')}
        </Button>
      ) : null}
      {access.changePassword ? (
        <Button size="small" startIcon={<LockOpenIcon />} onClick={unlock} disabled={sending}>
          {translate('users.actions.unlock')}
        </Button>
      ) : null}
      <Button size="small" startIcon={<PhoneIphoneIcon />} onClick={() => setDialog('mobile')}>
        {translate('users.actions.mobile_clients')} ({record.mobile_clients?.length ?? 0})
      </Button>
      {access.changePassword ? <ChangePasswordDialog user={record} open={dialog === 'password'} onClose={() => setDialog(null)} /> : null}
      <MobileClientsDialog user={record} open={dialog === 'mobile'} onClose={() => setDialog(null)} canRemove={access.changePassword} />
    </TopToolbar>
  );
}

function UserHeader() {
  const translate = useTranslate();
  const { locale } = useFormat();
  const record = useRecordContext<User>();
  const access = useUserAccess();
  if (!record) return null;
  return (
    <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ alignItems: { sm: 'center' }, gap: 2, width: '100%' }}>
      <UserAvatar user={record} readOnly={!access?.avatar} />
      <Chip
        color={record.activated ? 'success' : 'default'}
        variant="outlined"
        label={
          record.activated && record.activated_at
            ? translate('users.activated_on', { date: formatDate(record.activated_at, locale) })
            : translate('users.not_activated')
        }
      />
      {record.is_invited ? <Chip variant="outlined" label={translate('resources.users.fields.is_invited')} /> : null}
    </Stack>
  );
}

export function UserEdit() {
  const { me } = useActions();
  const transform = useCallback(
    (values: Record<string, unknown>, options?: { previousData?: Record<string, unknown> }) =>
      userPatch(values, options?.previousData, me.userId),
    [me.userId],
  );
  return (
    <EditPage
      title={<UserTitle />}
      actions={<UserActions />}
      transform={transform}
      queryOptions={{ meta: { with: ['role', 'domains'] } }}
      mutationOptions={{ meta: { with: ['role', 'domains'] } }}
    >
      <UserForm mode="edit" header={<UserHeader />} />
    </EditPage>
  );
}
