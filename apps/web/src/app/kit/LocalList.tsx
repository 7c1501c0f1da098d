import { Box } from '@mui/material';
import type { ReactElement, ReactNode } from 'react';
import { Datagrid, type DatagridProps, ListContextProvider, type RaRecord, useList } from 'react-admin';
import { useRowCheckboxLabels } from './ListPage';

export interface LocalListProps<T extends RaRecord> {
  /** The records, already on the page (search results arriving live, a status the page read). */
  data: readonly T[];
  /** Which rows the bulk actions may pick (default: none, when there are no bulk actions). */
  isRowSelectable?: (record: T) => boolean;
  /** The bulk actions of the ticked rows (they read `useListContext().selectedIds`). */
  bulkActionButtons?: ReactElement | false;
  /** What the table shows while it has no row. */
  empty?: ReactElement;
  /**
   * The line above the table (a count, a status): the bulk toolbar takes its place while rows are
   * ticked, as it takes the place of `ListPage`'s top toolbar.
   */
  header?: ReactNode;
  /** The react-admin resource the columns' labels are read from (`resources.<name>.fields.<source>`). */
  resource: string;
  /** The columns (react-admin fields). */
  children: ReactNode;
  sx?: DatagridProps['sx'];
}

/**
 * The kit's table for records the page holds rather than pages from the server: the same grid,
 * labelled row checkboxes and bulk toolbar as `ListPage`, its selection local to the page (never
 * kept in the store), sorted in the browser.
 */
export function LocalList<T extends RaRecord>({
  data,
  isRowSelectable,
  bulkActionButtons = false,
  empty,
  resource,
  children,
  sx,
  header,
}: LocalListProps<T>) {
  const list = useList<T>({ data: data as T[], perPage: 1000, resource });
  const ref = useRowCheckboxLabels();
  return (
    <ListContextProvider value={list}>
      <div ref={ref}>
        <Box sx={{ minHeight: 48, display: 'flex', alignItems: 'center', px: 2 }}>{header}</Box>
        <Datagrid
          resource={resource}
          rowClick={false}
          bulkActionButtons={bulkActionButtons}
          isRowSelectable={isRowSelectable as DatagridProps['isRowSelectable']}
          empty={empty}
          sx={sx}
        >
          {children}
        </Datagrid>
      </div>
    </ListContextProvider>
  );
}
