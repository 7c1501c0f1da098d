import type { Identifier } from '@atrium/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useDataProvider, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { CreatePage } from '../../app/kit/RecordPage';
import { GuestForm } from './GuestForm';
import { GuestUrlDialog } from './GuestUrlDialog';
import { useCanGrant, useGuestSave } from './shared';
import { createGuestBody, type GuestFormValues, newGuestValues } from './transform';

interface GuestGrant {
  identifier: Identifier;
  key: string;
  url: string;
}

/** `/guest-access/add`: grants a guest a pass, then shows its link and QR code to send. */
export function GuestCreate() {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const allowed = useCanGrant();
  const [record] = useState(() => newGuestValues());
  const [grant, setGrant] = useState<GuestGrant | null>(null);
  const { limits, onSubmit } = useGuestSave(async (values: GuestFormValues) => {
    const body = await dp.request<{ data: GuestGrant }>('/guest-access', { method: 'PUT', body: createGuestBody(values) });
    setGrant(body.data);
    // The grant is not react-admin's own create: the cached list would not show it for a while.
    await queryClient.invalidateQueries({ queryKey: ['guest-access'] });
  });
  return (
    <CreatePage allowed={allowed} title={translate('guest_access.create_title')}>
      <GuestForm mode="create" record={record} onSubmit={onSubmit} limits={limits} />
      {grant ? <GuestUrlDialog url={grant.url} value={grant.identifier.value} onClose={() => navigate('/guest-access')} /> : null}
    </CreatePage>
  );
}
