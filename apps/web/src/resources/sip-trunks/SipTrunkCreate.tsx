import { useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { CreatePage } from '../../app/kit/RecordPage';
import { useSessionData } from '../../app/SessionContext';
import { SIP_TRUNK_ROUTES } from './routes';
import { SipTrunkForm } from './SipTrunkForm';
import { newSipTrunkRecord, sipTrunkBody } from './transform';

const record = newSipTrunkRecord();

function SipTrunkCreateView() {
  const translate = useTranslate();
  const { can } = useSessionData();
  return (
    <CreatePage
      allowed={can('can_create_sip_trunks')}
      title={translate('sip_trunks.create_title')}
      transform={sipTrunkBody}
      record={record}
    >
      <SipTrunkForm mode="create" />
    </CreatePage>
  );
}

export function SipTrunkCreate() {
  return (
    <ApiRoutes routes={SIP_TRUNK_ROUTES}>
      <SipTrunkCreateView />
    </ApiRoutes>
  );
}
