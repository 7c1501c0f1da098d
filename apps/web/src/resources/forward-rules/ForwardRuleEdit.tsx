import type { ForwardGroup } from '@atrium/contract';
import { useRecordContext, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { patchTransform } from '../../app/kit/patch';
import { EditPage } from '../../app/kit/RecordPage';
import { ForwardRuleForm } from './ForwardRuleForm';
import { FORWARD_GROUP_WITH, FORWARD_RULE_ROUTES } from './routes';
import { forwardGroupBody } from './transform';

function ForwardRuleTitle() {
  const translate = useTranslate();
  const record = useRecordContext<ForwardGroup>();
  return <span>{record ? translate('forward_rules.edit_title', { name: record.name }) : translate('forward_rules.title')}</span>;
}

const transform = patchTransform(forwardGroupBody);

export function ForwardRuleEdit() {
  return (
    <ApiRoutes routes={FORWARD_RULE_ROUTES}>
      <EditPage
        title={<ForwardRuleTitle />}
        transform={transform}
        // The same meta for both, so the saved record replaces the one the page shows.
        queryOptions={FORWARD_GROUP_WITH}
        mutationOptions={FORWARD_GROUP_WITH}
      >
        <ForwardRuleForm mode="edit" />
      </EditPage>
    </ApiRoutes>
  );
}
