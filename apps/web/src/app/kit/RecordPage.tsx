import { ERRORS } from '@atrium/contract';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import { Alert, AlertTitle, Box, Button } from '@mui/material';
import type { ComponentType, ReactNode } from 'react';
import {
  Create,
  type CreateProps,
  Edit,
  type EditProps,
  type RaRecord,
  Title,
  useCreatePath,
  useEditContext,
  useResourceContext,
  useTranslate,
} from 'react-admin';
import { Link, useParams } from 'react-router-dom';
import { errorMessageOf, errorText, type Translate } from '../errors';

/** The status of a failed call, when it has one. */
const statusOf = (error: unknown): number | undefined => {
  const s = (error as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
};

/** Server messages of a 404 or 403 that only repeat what the hint already says. */
const SAYS_NOTHING_MORE = new Set<string>([ERRORS.not_found.message, ERRORS.action_prohibited.message, 'not found', 'forbidden']);

/**
 * The text of the record error: for 404 and 403 the hint, followed by the server's message only
 * when it says more than the hint (not a plain "item not found"); otherwise the error display rule.
 */
export function recordErrorText(error: unknown, translate: Translate): string {
  const status = statusOf(error);
  if (status !== 404 && status !== 403) return errorText(error, translate);
  const hint = translate('kit.record_unavailable_hint');
  const message = errorMessageOf(error)?.trim().toLowerCase();
  return !message || SAYS_NOTHING_MORE.has(message) ? hint : `${hint} ${errorText(error, translate)}`;
}

/**
 * What an edit page shows instead of a blank page when its record cannot be read: 404 and 403 say
 * that the record does not exist or is not visible to this user, anything else the error display
 * rule. One alert (the MUI Alert's own role), not an alert inside another.
 */
export function RecordError() {
  const translate = useTranslate();
  const resource = useResourceContext();
  const createPath = useCreatePath();
  const { error } = useEditContext();
  const status = statusOf(error);
  const hidden = status === 404 || status === 403;
  return (
    <Box sx={{ p: 2 }}>
      <Alert severity={hidden ? 'warning' : 'error'} variant="outlined">
        <AlertTitle>{translate(hidden ? 'kit.record_unavailable' : 'kit.record_failed')}</AlertTitle>
        {recordErrorText(error, translate)}
      </Alert>
      {resource ? (
        <Button component={Link} to={createPath({ resource, type: 'list' })} startIcon={<ArrowBackIcon />} sx={{ mt: 2 }}>
          {translate('kit.back_to_list')}
        </Button>
      ) : null}
    </Box>
  );
}

export interface EditPageProps<T extends RaRecord = RaRecord> extends Omit<EditProps<T>, 'children'> {
  children: ReactNode;
}

/**
 * The edit page of every area: pessimistic saves (the server's answer decides), stays on the page
 * after a save, and a clear message (not a blank page or a silent redirect) when the record may not be seen.
 */
export function EditPage<T extends RaRecord = RaRecord>({ children, queryOptions, ...props }: EditPageProps<T>) {
  return (
    <Edit<T>
      mutationMode="pessimistic"
      redirect={false}
      redirectOnError={false}
      error={<RecordError />}
      queryOptions={{ onError: () => undefined, ...queryOptions }}
      {...props}
    >
      {children}
    </Edit>
  );
}

/** What a page or form shows in place of an action the user may not take (a create page opened by URL). */
export function NotAllowed() {
  const translate = useTranslate();
  const resource = useResourceContext();
  const createPath = useCreatePath();
  return (
    <Box sx={{ p: 2 }}>
      <Title title={translate('kit.not_allowed')} />
      <Alert severity="warning" variant="outlined">
        <AlertTitle>{translate('kit.not_allowed')}</AlertTitle>
        {translate('kit.not_allowed_hint')}
      </Alert>
      {resource ? (
        <Button component={Link} to={createPath({ resource, type: 'list' })} startIcon={<ArrowBackIcon />} sx={{ mt: 2 }}>
          {translate('kit.back_to_list')}
        </Button>
      ) : null}
    </Box>
  );
}

/** The note above a form the user may see but not change. */
export function ReadOnlyNotice() {
  const translate = useTranslate();
  return (
    <Alert severity="info" variant="outlined" sx={{ mb: 2, width: '100%' }}>
      {translate('kit.read_only')}
    </Alert>
  );
}

/**
 * The create page of every area: after creating, the new record's edit page opens. With
 * `allowed={false}` (the action rules refuse it) it says so instead of offering a form the server would refuse.
 */
export function CreatePage<T extends RaRecord = RaRecord>({
  children,
  allowed = true,
  ...props
}: CreateProps<T> & { children: ReactNode; allowed?: boolean }) {
  if (!allowed) return <NotAllowed />;
  return (
    <Create<T> redirect="edit" {...props}>
      {children}
    </Create>
  );
}

/**
 * The spec's routes are `/<area>/add` for creating; react-admin mounts edit at `/<area>/:id`. This
 * edit component answers `add` with the create page, so both routes of the spec work.
 */
export function editOrAdd(EditComponent: ComponentType, CreateComponent: ComponentType): ComponentType {
  return function EditOrAdd() {
    const { id } = useParams();
    return id === 'add' ? <CreateComponent /> : <EditComponent />;
  };
}
