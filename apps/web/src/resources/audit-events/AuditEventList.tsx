import type { AuditEvent } from '@atrium/contract';
import CloseIcon from '@mui/icons-material/Close';
import VisibilityIcon from '@mui/icons-material/VisibilityOutlined';
import { Box, Button, Chip, Drawer, IconButton, Stack, Typography } from '@mui/material';
import { alpha } from '@mui/material/styles';
import { useState } from 'react';
import {
  AutocompleteInput,
  DateTimeInput,
  FunctionField,
  ReferenceInput,
  TextInput,
  useGetOne,
  useListContext,
  useLocaleState,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { auditSentence } from '../../app/audit-sentence';
import { filterSource } from '../../app/dataProvider';
import { formatDateTime } from '../../app/format';
import { ApiRoutes } from '../../app/kit/apiRoutes';
import { PROSE_CELL } from '../../app/kit/ListBody';
import { ListDownload } from '../../app/kit/ListDownload';
import { EllipsisField, ListPage, textFilter } from '../../app/kit/ListPage';
import { DateTimeField } from '../../app/kit/LocaleFields';
import { authorOf, changedKeys, jsonLines } from './diff';

/** The menu's /audit-events is the API's /audit/items. */
export const AUDIT_EVENTS = 'audit-events';
const ROUTES = { [AUDIT_EVENTS]: { path: 'audit/items' } };
const F = `resources.${AUDIT_EVENTS}.fields`;

const byName = (q: string) => (q ? { 'name@has': q } : {});

// Who, what, when and which request (spec entities §7: the list's filters).
const filters = [
  <ReferenceInput key="user_id" source="user_id" reference="users" perPage={25} sort={{ field: 'name', order: 'ASC' }} alwaysOn>
    <AutocompleteInput label={`${F}.user_id`} filterToQuery={byName} />
  </ReferenceInput>,
  // Entities are recorded as written by each area (group, user, domains…): a prefix finds singular and plural alike.
  textFilter('entity', 'begins_with', `${F}.entity`, { alwaysOn: true }),
  <TextInput key="action" source="action" label={`${F}.action`} resettable />,
  <TextInput key="entity_id" source="entity_id" label={`${F}.entity_id`} resettable />,
  <TextInput key="request_id" source="request_id" label={`${F}.request_id`} resettable />,
  <DateTimeInput key="from" source={filterSource('created_at', 'above')} label={`${F}.from`} />,
  <DateTimeInput key="to" source={filterSource('created_at', 'below')} label={`${F}.to`} />,
];

function useAuthor() {
  const translate = useTranslate();
  return (e: AuditEvent) => {
    const a = authorOf(e);
    const who = typeof a === 'string' ? a : translate(a.key, a.args);
    // API keys (issue 14): a change made with a key names it beside its creator.
    return e.api_key ? translate('audit_events.via_api_key', { author: who, name: e.api_key.name, prefix: e.api_key.prefix }) : who;
  };
}

/** One side of the change: a line per key, the changed ones marked. */
function ChangeSide({ title, value, changed, tone }: { title: string; value: unknown; changed: Set<string>; tone: 'error' | 'success' }) {
  const translate = useTranslate();
  const lines = jsonLines(value, changed);
  return (
    <Box component="section" aria-label={title} sx={{ flex: 1, minWidth: 0 }}>
      <Typography variant="subtitle2" component="h3" gutterBottom>
        {title}
      </Typography>
      {lines.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {translate('audit_events.nothing')}
        </Typography>
      ) : (
        <Box
          sx={{
            fontFamily: 'monospace',
            fontSize: 13,
            border: 1,
            borderColor: 'divider',
            borderRadius: 1,
            py: 0.5,
            overflowX: 'auto',
          }}
        >
          {lines.map((l) => (
            <Box
              key={l.key ?? '(value)'}
              data-changed={l.changed ? 'true' : undefined}
              sx={{
                display: 'flex',
                alignItems: 'flex-start',
                gap: 1,
                px: 1,
                bgcolor: (t) => (l.changed ? alpha(t.palette[tone].main, 0.16) : 'transparent'),
                borderLeft: 3,
                borderColor: (t) => (l.changed ? t.palette[tone].main : 'transparent'),
              }}
            >
              <Box component="pre" sx={{ m: 0, flex: 1, whiteSpace: 'pre-wrap', wordBreak: 'break-word', font: 'inherit' }}>
                {l.text}
              </Box>
              {l.changed ? (
                <Typography
                  variant="caption"
                  // The tone's main colour on its own tint is too faint to read (axe color-contrast): its dark shade (light in dark mode).
                  sx={{
                    color: (t) => (t.palette.mode === 'dark' ? t.palette[tone].light : t.palette[tone].dark),
                    fontWeight: 600,
                    whiteSpace: 'nowrap',
                  }}
                >
                  {translate('audit_events.changed')}
                </Typography>
              ) : null}
            </Box>
          ))}
        </Box>
      )}
    </Box>
  );
}

/** An event in full: who, what, when, where from, and its change before and after, side by side. */
function AuditEventDetails({ id, onClose }: { id: number; onClose: () => void }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const author = useAuthor();
  const sentence = useSentence();
  const { setFilters, filterValues } = useListContext();
  const { data: e, isPending } = useGetOne<AuditEvent>(AUDIT_EVENTS, { id });
  const changed = e ? changedKeys(e.before, e.after) : new Set<string>();
  const facts: [string, string | null][] = e
    ? [
        [`${F}.change`, sentence(e)],
        [`${F}.created_at`, formatDateTime(e.created_at, locale)],
        [`${F}.user`, author(e)],
        [`${F}.entity`, e.entity],
        [`${F}.entity_id`, e.entity_id],
        [`${F}.action`, e.action],
        [`${F}.ip`, e.ip],
        [`${F}.request_id`, e.request_id],
      ]
    : [];
  return (
    <Box sx={{ p: 2, width: { xs: '100vw', md: 'min(960px, 80vw)' } }} role="region" aria-labelledby="audit-event-title">
      <Stack direction="row" sx={{ mb: 1, alignItems: 'center' }}>
        <Typography id="audit-event-title" variant="h6" component="h2" sx={{ flex: 1 }}>
          {translate('audit_events.details', { id })}
        </Typography>
        <IconButton aria-label={translate('audit_events.close')} onClick={onClose}>
          <CloseIcon />
        </IconButton>
      </Stack>
      {isPending || !e ? (
        <Typography color="text.secondary">{translate('audit_events.loading')}</Typography>
      ) : (
        <>
          <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 2, rowGap: 0.5, m: 0, mb: 2 }}>
            {facts.map(([label, value]) => (
              <Box key={label} sx={{ display: 'contents' }}>
                <Typography component="dt" variant="body2" color="text.secondary">
                  {translate(label)}
                </Typography>
                <Typography component="dd" variant="body2" sx={{ m: 0, wordBreak: 'break-all' }}>
                  {value || '—'}
                </Typography>
              </Box>
            ))}
          </Box>
          <Stack direction="row" spacing={1} sx={{ mb: 2, alignItems: 'center' }}>
            {changed.size > 0 ? <Chip size="small" label={translate('audit_events.changed_count', { smart_count: changed.size })} /> : null}
            {e.request_id ? (
              <Button
                size="small"
                onClick={() => {
                  setFilters({ request_id: e.request_id }, {});
                  onClose();
                }}
                disabled={filterValues.request_id === e.request_id}
              >
                {translate('audit_events.same_request')}
              </Button>
            ) : null}
          </Stack>
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
            <ChangeSide title={translate('audit_events.before')} value={e.before} changed={e.after ? changed : new Set()} tone="error" />
            <ChangeSide title={translate('audit_events.after')} value={e.after} changed={changed} tone="success" />
          </Stack>
        </>
      )}
    </Box>
  );
}

/** The row's button (rows open on click too; a keyboard reaches this). */
function OpenField({ onOpen }: { onOpen: (id: number) => void; label?: string; sortable?: boolean }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const e = useRecordContext<AuditEvent>();
  if (!e) return null;
  return (
    <IconButton
      size="small"
      aria-label={translate('audit_events.open', { time: formatDateTime(e.created_at, locale) })}
      onClick={(event) => {
        event.stopPropagation();
        onOpen(e.id);
      }}
    >
      <VisibilityIcon fontSize="small" />
    </IconButton>
  );
}

/** The event as a sentence in the reader's language. */
function useSentence() {
  const translate = useTranslate();
  return (e: AuditEvent) =>
    auditSentence(
      {
        ...e,
        // A failed sign-in has no author; a deleted author keeps only an id (both worded by the sentence).
        author: e.user ? e.user.name || e.user.login : null,
      },
      translate,
    );
}

function AuditEventListView() {
  const translate = useTranslate();
  const sentence = useSentence();
  const [open, setOpen] = useState<number | null>(null);
  return (
    <ListPage
      title={translate('audit_events.title')}
      sort={{ field: 'created_at', order: 'DESC' }}
      filters={filters}
      rowClick={(id) => {
        setOpen(Number(id));
        return false;
      }}
      extraActions={<ListDownload path="/audit/items/download" name="audit-events" />}
      omit={['id', 'ip']}
      aside={
        <Drawer
          anchor="right"
          open={open !== null}
          onClose={() => setOpen(null)}
          // The drawer is a dialog: named by the change it shows.
          slotProps={{ paper: { 'aria-label': translate('audit_events.details', { id: open ?? '' }) } }}
        >
          {open !== null ? <AuditEventDetails id={open} onClose={() => setOpen(null)} /> : null}
        </Drawer>
      }
    >
      <EllipsisField source="id" />
      <DateTimeField source="created_at" />
      <FunctionField source="change" sortable={false} cellClassName={PROSE_CELL} render={(e: AuditEvent) => sentence(e)} />
      <EllipsisField source="entity_id" sortable={false} />
      <EllipsisField source="request_id" sortable={false} />
      <FunctionField source="ip" sortable={false} render={(e: AuditEvent) => e.ip ?? '—'} />
      <OpenField label="form.actions" sortable={false} onOpen={setOpen} />
    </ListPage>
  );
}

/** The audit log (spec entities §2 /audit-events): every change of the project, its filters, details and download. */
export function AuditEventList() {
  return (
    <ApiRoutes routes={ROUTES}>
      <AuditEventListView />
    </ApiRoutes>
  );
}
