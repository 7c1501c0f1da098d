import DownloadIcon from '@mui/icons-material/Download';
import { Button } from '@mui/material';
import { useState } from 'react';
import { useListContext, useTranslate } from 'react-admin';
import { toFilters, toSort } from '../dataProvider';
import { useAlert } from '../useAlert';
import { downloadFile } from './download';

/**
 * Buttons of a list that download what it shows (its filters and sort, every page) as csv or xlsx
 * from `path` (an API download that takes `export_format`, `filters` and `sort`).
 */
export function ListDownload({ path, name }: { path: string; name: string }) {
  const translate = useTranslate();
  const alert = useAlert();
  const { filterValues, sort } = useListContext();
  const [busy, setBusy] = useState(false);
  const download = async (format: 'csv' | 'xlsx') => {
    setBusy(true);
    try {
      const f = toFilters(filterValues);
      await downloadFile(
        path,
        { export_format: format, sort: toSort(sort), ...(f ? { filters: JSON.stringify(f) } : {}) },
        `${name}.${format}`,
      );
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
