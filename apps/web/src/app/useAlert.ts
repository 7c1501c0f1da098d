import { useNotify, useTranslate } from 'react-admin';
import { reportError } from './errors';

/**
 * Alert toasts (spec core §2): error, warning, success, info, 3000 ms by default; `done()` after a
 * save; `error(e)` applies the error display rule of spec core §8.
 */
export function useAlert() {
  const notify = useNotify();
  const translate = useTranslate();
  return {
    done: () => notify('alerts.done', { type: 'success' }),
    success: (key: string, args?: Record<string, unknown>) => notify(key, { type: 'success', messageArgs: args }),
    info: (key: string, args?: Record<string, unknown>) => notify(key, { type: 'info', messageArgs: args }),
    warning: (key: string, args?: Record<string, unknown>, autoHideDuration?: number) =>
      notify(key, { type: 'warning', messageArgs: args, autoHideDuration }),
    error: (error: unknown) => notify(reportError(error, translate), { type: 'error' }),
  };
}
