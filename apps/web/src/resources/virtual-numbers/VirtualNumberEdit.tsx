import type { SipNumber } from '@atrium/contract';
import { useRecordContext, useTranslate } from 'react-admin';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { patchTransform } from '../../app/kit/patch';
import { EditPage } from '../../app/kit/RecordPage';
import { SIP_NUMBER_WITH, VIRTUAL_NUMBER_ROUTES } from './routes';
import { sipNumberBody } from './transform';
import { VirtualNumberForm } from './VirtualNumberForm';

function VirtualNumberTitle() {
  const translate = useTranslate();
  const record = useRecordContext<SipNumber>();
  return <span>{record ? translate('virtual_numbers.edit_title', { number: record.number }) : translate('virtual_numbers.title')}</span>;
}

const transform = patchTransform((values) => sipNumberBody(values, 'edit'));

export function VirtualNumberEdit() {
  return (
    <ApiRoutes routes={VIRTUAL_NUMBER_ROUTES}>
      <EditPage
        title={<VirtualNumberTitle />}
        transform={transform}
        // The same meta for both, so the saved record replaces the one the page shows.
        queryOptions={SIP_NUMBER_WITH}
        mutationOptions={SIP_NUMBER_WITH}
      >
        <VirtualNumberForm mode="edit" />
      </EditPage>
    </ApiRoutes>
  );
}
