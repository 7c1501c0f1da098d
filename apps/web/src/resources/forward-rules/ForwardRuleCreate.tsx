import { useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { CreatePage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { ForwardRuleForm } from './ForwardRuleForm';
import { FORWARD_RULE_ROUTES } from './routes';
import { forwardGroupBody, newForwardGroupRecord } from './transform';

const record = newForwardGroupRecord();

function ForwardRuleCreateView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <CreatePage
      allowed={can('can_create_forward_rules')}
      title={translate('forward_rules.create_title')}
      transform={forwardGroupBody}
      record={record}
    >
      <ForwardRuleForm mode="create" />
    </CreatePage>
  );
}

export function ForwardRuleCreate() {
  return (
    <ApiRoutes routes={FORWARD_RULE_ROUTES}>
      <ForwardRuleCreateView />
    </ApiRoutes>
  );
}
