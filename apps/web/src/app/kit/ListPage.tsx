import type { FilterOperator } from '@atrium/contract';
import DeleteIcon from '@mui/icons-material/Delete';
import InboxIcon from '@mui/icons-material/Inbox';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  Typography,
} from '@mui/material';
import { type ReactElement, type ReactNode, useEffect, useRef, useState } from 'react';
import {
  CreateButton,
  type DatagridProps,
  ExportButton,
  FilterButton,
  List,
  type ListProps,
  Pagination,
  SelectColumnsButton,
  TextInput,
  TopToolbar,
  useDataProvider,
  useListContext,
  useNotify,
  useRecordContext,
  useRefresh,
  useResourceContext,
  useTranslate,
} from 'react-admin';
import { type AtriumDataProvider, filterSource } from '../dataProvider';
import { reportError } from '../errors';
import { ELLIPSIS_TEXT, ListBody } from './ListBody';

/**
 * A filter input for `field` with one of the six operators (ARCHITECTURE §3), e.g.
 * `textFilter('name', 'begins_with', 'users.fields.name', { alwaysOn: true })`.
 */
export function textFilter(field: string, operator: FilterOperator, label: string, extra: { alwaysOn?: boolean } = {}): ReactElement {
  const source = filterSource(field, operator);
  return <TextInput key={source} source={source} label={label} resettable {...extra} />;
}

/**
 * A text column on one line: a text longer than a column may be ends with an ellipsis and shows in
 * full as the cell's tooltip (`title`); in the identifying column and on a phone's lines it is whole.
 */
export function EllipsisField({
  source,
  render,
  emptyText = '—',
}: {
  source: string;
  /** The text of the record, when it is not the value of `source`. */
  render?: (record: Record<string, unknown>) => string | null | undefined;
  emptyText?: string;
  /** Read by the datagrid for the column's header and sorting. */
  label?: string;
  sortable?: boolean;
  sortBy?: string;
}) {
  const record = useRecordContext();
  if (!record) return null;
  const value = render ? render(record) : record[source];
  const text = value === null || value === undefined || value === '' ? emptyText : String(value);
  return (
    <Typography component="span" variant="body2" noWrap title={text} className={ELLIPSIS_TEXT} sx={{ display: 'block' }}>
      {text}
    </Typography>
  );
}

/**
 * react-admin puts a row checkbox's label on MUI's wrapper span, where ARIA forbids it, and leaves
 * the checkbox input itself unnamed (axe: aria-prohibited-attr and label). This moves the label to
 * the input for every row drawn inside the returned ref, new pages and rows included.
 */
export function useRowCheckboxLabels() {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const fix = () => {
      for (const span of root.querySelectorAll<HTMLElement>('.RaDatagrid-checkbox[aria-label]')) {
        const input = span.querySelector('input');
        const label = span.getAttribute('aria-label');
        if (input && label) input.setAttribute('aria-label', label);
        span.removeAttribute('aria-label');
      }
    };
    fix();
    const observer = new MutationObserver(fix);
    observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
    return () => observer.disconnect();
  }, []);
  return ref;
}

/**
 * A row that may not be selected (e.g. one the caller may not delete) shows no checkbox: react-admin
 * would draw a disabled one without an accessible name, which says nothing and fails axe.
 */
const UNSELECTABLE_ROW_SX = { '& .RaDatagrid-row .MuiCheckbox-root.Mui-disabled': { visibility: 'hidden' } } as const;

/**
 * What an empty list says: "no records yet" (or the area's own `text`) when nothing is filtered,
 * otherwise that nothing matches the search or filters, with a button that clears them.
 */
export function EmptyState({ text }: { text?: string }) {
  const translate = useTranslate();
  const list = useListContext();
  const filtered = Object.values(list.filterValues ?? {}).some((v) => v !== undefined && v !== '' && v !== null);
  return (
    <Box sx={{ textAlign: 'center', py: 8, color: 'text.secondary' }} role="status">
      <InboxIcon sx={{ fontSize: 64, opacity: 0.4 }} />
      <Typography variant="h6" component="p">
        {filtered ? translate('kit.nothing_matches') : (text ?? translate('list.empty'))}
      </Typography>
      {filtered ? (
        <Button sx={{ mt: 1 }} onClick={() => list.setFilters({}, [])}>
          {translate('kit.clear_search')}
        </Button>
      ) : null}
    </Box>
  );
}

/** A yes/no option of a bulk delete, sent as a query parameter (`gently=true`). */
export interface BulkDeleteFlag {
  name: string;
  /** Translation key of the checkbox. */
  label: string;
  defaultValue: boolean;
}

/** The answer of `POST …/delete`: deleted ids, the ones not deleted with why, and any area-specific extras. */
export interface BulkDeleteAnswer {
  deleted?: unknown[];
  not_deleted?: { id: unknown; message: string }[];
  [extra: string]: unknown;
}

export interface BulkDeleteWithConfirmProps {
  /** Options shown in the confirmation and sent as query parameters. */
  flags?: readonly BulkDeleteFlag[];
  /** Extra text to show after the call (e.g. who still uses a role); null when nothing to add. */
  describe?: (answer: BulkDeleteAnswer, translate: (key: string, options?: Record<string, unknown>) => string) => string | null;
  /** The API collection to delete from when it is not the resource's own (`POST /<path>/delete`). */
  path?: string;
  /**
   * What else the deletion does, said before it is confirmed (e.g. access rules that lose a
   * schedule), from the selected records as the server has them; null when nothing.
   */
  warning?: (records: Record<string, unknown>[], translate: (key: string, options?: Record<string, unknown>) => string) => string | null;
}

/**
 * A selection belongs to the visit of a list: react-admin keeps it in the (local storage) store, so
 * rows ticked, then left (or the tab reloaded), would still be ticked on a later visit, possibly on
 * a page not shown, and join a later bulk action unseen. So a list starts with nothing ticked and
 * forgets its ticks when left. A cancelled confirmation keeps them: the rows stay ticked on screen
 * with their count in the bulk toolbar.
 */
function ForgetSelectionOnLeave() {
  const { selectedIds, onUnselectItems, isPending } = useListContext();
  const forget = useRef(onUnselectItems);
  forget.current = onUnselectItems;
  const shown = useRef(false);
  useEffect(() => {
    // Once a visit, when its rows first show: nobody has ticked anything on them yet.
    if (shown.current || isPending) return;
    shown.current = true;
    if (selectedIds.length) onUnselectItems(true);
  }, [isPending, selectedIds, onUnselectItems]);
  useEffect(() => () => forget.current(true), []);
  return null;
}

/** Bulk delete with a confirmation, through `POST …/delete {items}`; reports what was not deleted and why. */
export function BulkDeleteWithConfirm({ flags, describe, path, warning }: BulkDeleteWithConfirmProps = {}) {
  const translate = useTranslate();
  const resource = useResourceContext();
  const dataProvider = useDataProvider();
  const notify = useNotify();
  const refresh = useRefresh();
  const { selectedIds, onUnselectItems } = useListContext();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [warned, setWarned] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, boolean>>(() =>
    Object.fromEntries((flags ?? []).map((f) => [f.name, f.defaultValue])),
  );

  const call = async (): Promise<{ notDeleted: { id: unknown; message: string }[]; answer: BulkDeleteAnswer }> => {
    if (!resource) return { notDeleted: [], answer: {} };
    if (!flags?.length && !path) {
      const result = await dataProvider.deleteMany(resource, { ids: selectedIds });
      return { notDeleted: result.meta?.notDeleted ?? [], answer: {} };
    }
    // With options the call goes out as is, so the area's extras in the answer reach `describe`.
    const body = await (dataProvider as unknown as AtriumDataProvider).request<{ data?: BulkDeleteAnswer }>(`/${path ?? resource}/delete`, {
      method: 'POST',
      query: values,
      body: { items: selectedIds },
    });
    const answer = body?.data ?? {};
    return { notDeleted: answer.not_deleted ?? [], answer };
  };

  const run = async () => {
    if (!resource) return;
    setBusy(true);
    try {
      const { notDeleted, answer } = await call();
      const extra = describe?.(answer, translate);
      if (notDeleted.length > 0) {
        const reasons = [...new Set(notDeleted.map((n) => reportError({ message: n.message }, translate)))].join('; ');
        notify('list.not_deleted', {
          type: 'warning',
          messageArgs: { smart_count: notDeleted.length, reasons: extra ? `${reasons}. ${extra}` : reasons },
          autoHideDuration: extra ? 10_000 : undefined,
        });
      } else notify('alerts.done', { type: 'success' });
      onUnselectItems();
    } catch (error) {
      notify(reportError(error, translate), { type: 'error' });
    } finally {
      setBusy(false);
      setOpen(false);
      refresh();
    }
  };

  // The selection may span pages: the records are read again, so the warning counts every one of them.
  const ask = async () => {
    setWarned(null);
    if (warning && resource) {
      try {
        const { data } = await dataProvider.getMany(resource, { ids: selectedIds });
        setWarned(warning(data, translate));
      } catch (error) {
        notify(reportError(error, translate), { type: 'error' });
        return;
      }
    }
    setOpen(true);
  };

  return (
    <>
      <Button color="error" size="small" startIcon={<DeleteIcon />} onClick={ask}>
        {translate('list.delete_selected')}
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        slotProps={{ paper: { sx: { maxWidth: 300 } } }}
        aria-labelledby="bulk-delete-title"
      >
        <DialogTitle id="bulk-delete-title">{translate('list.confirm_delete_title')}</DialogTitle>
        <DialogContent>
          {/* A resource may say what deleting its records means (a backup's file goes too); else the kit's words. */}
          {translate(`${resource}.bulk_delete_confirm`, {
            smart_count: selectedIds.length,
            _: translate('list.confirm_delete', { smart_count: selectedIds.length }),
          })}
          {warned ? (
            <Alert severity="warning" variant="outlined" sx={{ mt: 2 }}>
              {warned}
            </Alert>
          ) : null}
          {(flags ?? []).map((f) => (
            <FormControlLabel
              key={f.name}
              sx={{ display: 'flex', mt: 1 }}
              control={<Checkbox checked={!!values[f.name]} onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.checked }))} />}
              label={translate(f.label)}
            />
          ))}
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)} disabled={busy}>
            {translate('form.cancel')}
          </Button>
          <Button color="error" variant="contained" onClick={run} disabled={busy}>
            {translate('form.approve')}
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

// The default page holds 20 rows (ARCHITECTURE §3), so the choices must include 20.
const PER_PAGE_OPTIONS = [10, 20, 50, 100];

export interface ListPageProps extends Omit<ListProps, 'children' | 'actions' | 'exporter'> {
  /** Filter inputs (see `textFilter`); their sources carry the operator. */
  filters?: ReactElement[];
  /** Offer a create button (the area has a create page). */
  canCreate?: boolean;
  /** Offer the export button (only where the area has an export). */
  canExport?: boolean;
  /** Offer bulk delete with confirmation. */
  canDelete?: boolean;
  rowClick?: DatagridProps['rowClick'];
  /**
   * Which rows bulk actions may pick. Default: every row but those the server marks
   * `can_delete: false` (records the caller may see but not delete).
   */
  isRowSelectable?: DatagridProps['isRowSelectable'];
  /** The create button opens `/<area>/add` (the spec's route; see `editOrAdd`) instead of `/<area>/create`. */
  addRoute?: boolean;
  /** Replaces the default bulk delete (e.g. `<BulkDeleteWithConfirm flags={…} />`). */
  bulkActions?: ReactElement;
  /** More buttons of the top toolbar (import, export dialogs…). */
  extraActions?: ReactNode;
  /**
   * Columns hidden until the user shows them (by source): the toolbar then offers a column chooser,
   * and the choice is remembered.
   */
  omit?: string[];
  /** Columns shown only on wide desks (see `ListBody`). */
  secondary?: string[];
  /** The column that names a record (never cut, the title of a phone's line); see `ListBody`. */
  primary?: string;
  /** The columns (react-admin fields). */
  children: ReactNode;
}

/** A row the server has not marked undeletable (`can_delete: false`). */
export const deletableRow = (record: { can_delete?: unknown }): boolean => record.can_delete !== false;

/**
 * The list page of every area: server-side paging (20 per page), sorting and filters, bulk delete
 * with confirmation, export where the area has one, empty and loading states; a table on desks and
 * lines on phones (`ListBody`).
 */
export function ListPage({
  filters,
  canCreate,
  canExport,
  canDelete,
  rowClick = 'edit',
  isRowSelectable = deletableRow,
  addRoute,
  bulkActions,
  extraActions,
  omit,
  secondary,
  primary,
  children,
  ...props
}: ListPageProps) {
  const resource = useResourceContext(props);
  const tableRef = useRowCheckboxLabels();
  return (
    <Box ref={tableRef} sx={{ display: 'contents' }}>
      <List
        perPage={20}
        pagination={<Pagination rowsPerPageOptions={PER_PAGE_OPTIONS} />}
        filters={filters}
        exporter={canExport ? undefined : false}
        empty={filters && filters.length > 0 ? false : <EmptyState />}
        actions={
          // The actions keep their width next to the filters (react-admin would shrink them as much as the
          // filters), up to 70% of the line; more actions wrap onto a second line rather than widen the page.
          <TopToolbar sx={{ flex: '0 0 auto', maxWidth: { md: '70%' }, flexWrap: 'wrap', justifyContent: 'flex-end', rowGap: 0.5 }}>
            {filters && filters.length > 0 ? <FilterButton /> : null}
            {canCreate ? <CreateButton to={addRoute && resource ? `/${resource}/add` : undefined} /> : null}
            {omit ? <SelectColumnsButton /> : null}
            {canExport ? <ExportButton /> : null}
            {extraActions}
          </TopToolbar>
        }
        {...props}
        // The list's column is a flex item: without this it would widen to its table instead of keeping to the page.
        sx={[{ '& .RaList-main': { minWidth: 0 } }, ...(Array.isArray(props.sx) ? props.sx : [props.sx ?? {}])]}
      >
        <ForgetSelectionOnLeave />
        <ListBody
          rowClick={rowClick}
          isRowSelectable={isRowSelectable}
          bulkActionButtons={canDelete ? (bulkActions ?? <BulkDeleteWithConfirm />) : false}
          empty={<EmptyState />}
          omit={omit}
          secondary={secondary}
          primary={primary}
          sx={UNSELECTABLE_ROW_SX}
        >
          {children}
        </ListBody>
      </List>
    </Box>
  );
}
