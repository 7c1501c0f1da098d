import type { SipTrunk } from '@atrium/contract';
import { useRecordContext, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { patchTransform } from '../../app/kit/patch';
import { EditPage } from '../../app/kit/RecordPage';
import { SIP_TRUNK_ROUTES } from './routes';
import { SipTrunkForm } from './SipTrunkForm';
import { sipTrunkBody } from './transform';

function SipTrunkTitle() {
  const translate = useTranslate();
  const record = useRecordContext<SipTrunk>();
  return <span>{record ? translate('sip_trunks.edit_title', { name: record.name }) : translate('sip_trunks.title')}</span>;
}

const transform = patchTransform(sipTrunkBody);

export function SipTrunkEdit() {
  return (
    <ApiRoutes routes={SIP_TRUNK_ROUTES}>
      <EditPage title={<SipTrunkTitle />} transform={transform}>
        <SipTrunkForm mode="edit" />
      </EditPage>
    </ApiRoutes>
  );
}
