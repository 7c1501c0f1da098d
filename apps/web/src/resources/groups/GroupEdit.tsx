import type { Group } from '@atrium/contract';
import { Alert, Stack } from '@mui/material';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNotify, useRecordContext, useTranslate } from 'react-admin';
import { errorText } from '../../app/errors';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { patchTransform } from '../../app/kit/patch';
import { EditPage } from '../../app/kit/RecordPage';
import { GroupForm, useTypeCode } from './GroupForm';
import { GROUP_ROUTES } from './routes';
import { groupBody, licenseIssues } from './transform';

/** Spec entities §9: each licence consistency error stays on screen for 30 s. */
export const LICENSE_ERROR_MS = 30_000;

function GroupTitle() {
  const translate = useTranslate();
  const record = useRecordContext<Group>();
  return <span>{record ? translate('groups.edit_title', { name: record.name }) : translate('groups.title')}</span>;
}

/** Messages that each disappear on their own after `ms`. */
function useTimedMessages(ms: number) {
  const [items, setItems] = useState<{ id: number; text: string }[]>([]);
  const next = useRef(0);
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  useEffect(() => () => timers.current.forEach(clearTimeout), []);
  const push = useCallback(
    (texts: string[]) => {
      const added = texts.map((text) => ({ id: next.current++, text }));
      setItems((list) => [...list, ...added]);
      for (const a of added) timers.current.push(setTimeout(() => setItems((list) => list.filter((i) => i.id !== a.id)), ms));
    },
    [ms],
  );
  const dismiss = (id: number) => setItems((list) => list.filter((i) => i.id !== id));
  return { items, push, dismiss };
}

function GroupEditView() {
  const translate = useTranslate();
  const notify = useNotify();
  const typeCode = useTypeCode();
  const licenceErrors = useTimedMessages(LICENSE_ERROR_MS);

  const onError = (error: unknown) => {
    const issues = licenseIssues(error);
    if (issues.length === 0) {
      notify(errorText(error, translate), { type: 'error' });
      return;
    }
    notify(errorText(error, translate), { type: 'error' });
    licenceErrors.push(
      issues.map((i) => translate('groups.license_error', { type: i.type ?? '—', message: errorText({ message: i.message }, translate) })),
    );
  };

  const notices =
    licenceErrors.items.length > 0 ? (
      <Stack spacing={1} sx={{ width: '100%', mb: 2 }} role="alert">
        {licenceErrors.items.map((i) => (
          <Alert key={i.id} severity="error" onClose={() => licenceErrors.dismiss(i.id)}>
            {i.text}
          </Alert>
        ))}
      </Stack>
    ) : null;

  return (
    <EditPage
      title={<GroupTitle />}
      transform={patchTransform((values) => groupBody(values, typeCode(values.domain_type_id)))}
      mutationOptions={{ onError }}
    >
      <GroupForm mode="edit" notices={notices} />
    </EditPage>
  );
}

export function GroupEdit() {
  return (
    <ApiRoutes routes={GROUP_ROUTES}>
      <GroupEditView />
    </ApiRoutes>
  );
}
