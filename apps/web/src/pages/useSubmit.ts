import { useTranslate } from 'ra-core';
import { useState } from 'react';
import { reportError } from '../app/errors';

/** Busy flag and error text of a form that makes one call. */
export function useSubmit() {
  const translate = useTranslate();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(reportError(err, translate));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
