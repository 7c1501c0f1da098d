import { useTranslate } from 'react-admin';
import { CreatePage } from '../../app/kit/RecordPage';
import { useActions } from '../../app/kit/useActions';
import { userBody } from './transform';
import { UserForm } from './UserForm';

const transform = (values: Record<string, unknown>) => userBody(values, 'create');

export function UserCreate() {
  const translate = useTranslate();
  const { can } = useActions();
  return (
    <CreatePage
      allowed={can('users.create')}
      title={translate('users.create_title')}
      transform={transform}
      record={{ send_registration_link: true, domains: [], is_group_admin: false, profile: { identifier_format: 'dec' } }}
    >
      <UserForm mode="create" />
    </CreatePage>
  );
}
