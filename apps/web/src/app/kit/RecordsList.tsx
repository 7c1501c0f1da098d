import { Box, Card, Typography } from '@mui/material';
import type { ReactElement, ReactNode } from 'react';
import {
  type DatagridProps,
  ListContextProvider,
  Pagination,
  type RaRecord,
  ResourceContextProvider,
  type SortPayload,
  Title,
  TopToolbar,
  useList,
} from 'react-admin';
import { ListBody } from './ListBody';
import { deletableRow, EmptyState } from './ListPage';

/** A page of the server's records: where it is and how to ask for another. */
export interface ServerPaging {
  /** Records on the server, every page together. */
  total: number;
  /** The page shown, from 1. */
  page: number;
  perPage: number;
  /** Asks for another page, or another page size (which starts again at page 1). */
  onChange: (page: number, perPage: number) => void;
  /** The page sizes offered. */
  perPageOptions?: number[];
}

export interface RecordsListProps<T extends RaRecord> {
  /** The records, already fetched (a settings page's own query, a part of a larger answer). */
  records: readonly T[] | undefined;
  /** Whose records these are: names the columns' labels (`resources.<resource>.fields.<source>`) and bulk deletes. */
  resource: string;
  /** Still fetching: the list shows its loading state. */
  loading?: boolean;
  /** The starting order; the column headers sort the records in place. */
  sort?: SortPayload;
  /** Records on a page before the list pages (all fetched at once, paged here). */
  perPage?: number;
  rowClick?: DatagridProps['rowClick'];
  /** Bulk actions over the selected records (e.g. `<BulkDeleteWithConfirm path="…" />`); none by default. */
  bulkActions?: ReactElement | false;
  isRowSelectable?: DatagridProps['isRowSelectable'];
  /** The column that names a record; see `ListBody`. */
  primary?: string;
  /** Columns shown only on wide desks (see `ListBody`). */
  secondary?: string[];
  /** The list's accessible name, when the page holds more than one list. */
  label?: string;
  /** What an empty list shows, when not the kit's "no records yet". */
  empty?: ReactElement;
  /**
   * The records are one page of the server's (`records` holds that page only): the list pages
   * through the server instead of through `records`.
   */
  serverPaging?: ServerPaging;
  /** The columns (react-admin fields). */
  children: ReactNode;
}

/**
 * A list of records the page already holds, drawn exactly like a list page's (`ListBody`): the same
 * table and phone lines, keyboard, sorting, paging, selection, empty and loading states.
 */
export function RecordsList<T extends RaRecord>({
  records,
  resource,
  loading,
  sort,
  perPage = 50,
  rowClick = false,
  bulkActions = false,
  isRowSelectable = deletableRow,
  primary,
  secondary,
  label,
  empty,
  serverPaging,
  children,
}: RecordsListProps<T>) {
  const local = useList<T>({
    data: records as T[] | undefined,
    isPending: loading,
    sort,
    perPage: serverPaging?.perPage ?? perPage,
    resource,
  });
  // One page of the server's, shown whole (the local list holds a page of that size): the pager asks
  // the server for the others.
  const list = serverPaging
    ? ({
        ...local,
        total: serverPaging.total,
        page: serverPaging.page,
        perPage: serverPaging.perPage,
        hasNextPage: serverPaging.page * serverPaging.perPage < serverPaging.total,
        hasPreviousPage: serverPaging.page > 1,
        setPage: (page: number) => serverPaging.onChange(page, serverPaging.perPage),
        setPerPage: (size: number) => serverPaging.onChange(1, size),
      } as typeof local)
    : local;
  const paged = serverPaging
    ? serverPaging.total > Math.min(...(serverPaging.perPageOptions ?? [serverPaging.perPage]))
    : (records?.length ?? 0) > perPage;
  return (
    <ResourceContextProvider value={resource}>
      <ListContextProvider value={list}>
        <ListBody
          rowClick={rowClick}
          bulkActionButtons={bulkActions}
          isRowSelectable={isRowSelectable}
          primary={primary}
          secondary={secondary}
          aria-label={label}
          empty={empty ?? <EmptyState />}
        >
          {children}
        </ListBody>
        {paged ? <Pagination rowsPerPageOptions={serverPaging?.perPageOptions ?? [serverPaging?.perPage ?? perPage]} /> : null}
      </ListContextProvider>
    </ResourceContextProvider>
  );
}

/**
 * The frame of a list page whose records are not a react-admin resource's: the title, an optional
 * hint, the actions on the right just above the list, and the list in a card, as `ListPage` draws it.
 */
export function RecordsListPage({
  title,
  actions,
  hint,
  children,
}: {
  title: string;
  actions?: ReactNode;
  hint?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Box sx={{ minWidth: 0 }}>
      <Title title={title} />
      {hint ? (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {hint}
        </Typography>
      ) : null}
      <TopToolbar sx={{ flexWrap: 'wrap', justifyContent: 'flex-end', rowGap: 0.5 }}>{actions}</TopToolbar>
      {/* Not clipped: the table's bulk actions slide over the toolbar above it, as in a list page. */}
      <Card sx={{ overflow: 'visible' }}>{children}</Card>
    </Box>
  );
}
