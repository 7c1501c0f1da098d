import DownloadIcon from '@mui/icons-material/Download';
import { Button } from '@mui/material';
import { useState } from 'react';
import { type SortPayload, useListContext, useTranslate } from 'react-admin';
import { toFilters, toSort } from '../dataProvider';
import { useAlert } from '../useAlert';
import { downloadFile } from './download';

/** A list's filters and sort as the usual download takes them: `filters` (JSON) and `sort`. */
function listQuery(filterValues: Record<string, unknown>, sort: SortPayload): Record<string, string | undefined> {
  const f = toFilters(filterValues);
  return { sort: toSort(sort), ...(f ? { filters: JSON.stringify(f) } : {}) };
}

/**
 * Buttons of a list that download what it shows (its filters and sort, every page) as csv or xlsx
 * from `path` (an API download that takes `export_format`, `filters` and `sort`; a route that takes
 * them otherwise gives its own `query`).
 */
export function ListDownload({
  path,
  name,
  query = listQuery,
}: {
  path: string;
  name: string;
  query?: (filterValues: Record<string, unknown>, sort: SortPayload) => Record<string, string | number | undefined>;
}) {
  const translate = useTranslate();
  const alert = useAlert();
  const { filterValues, sort } = useListContext();
  const [busy, setBusy] = useState(false);
  const download = async (format: 'csv' | 'xlsx') => {
    setBusy(true);
    try {
      await downloadFile(path, { export_format: format, ...query(filterValues, sort) }, `${name}.${format}`);
    } catch (error) {
      alert.error(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button size="small" startIcon={<DownloadIcon />} disabled={busy} onClick={() => download('csv')}>
        {translate('kit.download_csv')}
      </Button>
      <Button size="small" startIcon={<DownloadIcon />} disabled={busy} onClick={() => download('xlsx')}>
        {translate('kit.download_xlsx')}
      </Button>
    </>
  );
}
