import type { AccessRule } from '@atrium/contract';
import { TopToolbar, useRecordContext, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { patchTransform } from '../../app/kit/patch';
import { EditPage } from '../../app/kit/RecordPage';
import { AccessRuleForm } from './AccessRuleForm';
import { ACCESS_RULE_ROUTES } from './routes';
import { ProhibitionChip } from './shared';
import { accessRuleBody } from './transform';

function AccessRuleTitle() {
  const translate = useTranslate();
  const record = useRecordContext<AccessRule>();
  return <span>{record ? translate('access_rules.edit_title', { name: record.name }) : translate('access_rules.title')}</span>;
}

function AccessRuleActions() {
  return (
    <TopToolbar sx={{ alignItems: 'center' }}>
      <ProhibitionChip />
    </TopToolbar>
  );
}

const transform = patchTransform((values) => accessRuleBody(values, 'edit'));

export function AccessRuleEdit() {
  return (
    <ApiRoutes routes={ACCESS_RULE_ROUTES}>
      <EditPage title={<AccessRuleTitle />} actions={<AccessRuleActions />} transform={transform}>
        <AccessRuleForm mode="edit" />
      </EditPage>
    </ApiRoutes>
  );
}
