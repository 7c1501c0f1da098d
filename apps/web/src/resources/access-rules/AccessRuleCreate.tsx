import { useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { CreatePage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { AccessRuleForm } from './AccessRuleForm';
import { ACCESS_RULE_ROUTES } from './routes';
import { accessRuleBody, newAccessRuleRecord } from './transform';

const transform = (values: Record<string, unknown>) => accessRuleBody(values, 'create');
const record = newAccessRuleRecord();

function AccessRuleCreateView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <CreatePage
      allowed={can('can_create_access_rules')}
      title={translate('access_rules.create_title')}
      transform={transform}
      record={record}
    >
      <AccessRuleForm mode="create" />
    </CreatePage>
  );
}

export function AccessRuleCreate() {
  return (
    <ApiRoutes routes={ACCESS_RULE_ROUTES}>
      <AccessRuleCreateView />
    </ApiRoutes>
  );
}
