import { validateWithoutEval } from '@atrium/contract';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from './app/locale';
import { dropShell, SHELL_LAST_MS } from './app/shell';
import { Root } from './Root';

// The console runs under a CSP without 'unsafe-eval' (the server's CONSOLE_CSP).
validateWithoutEval();

const container = document.getElementById('root');
if (!container) throw new Error('no #root element');
// English is at hand; another language is rendered once its texts have arrived.
void i18nReady.then(() =>
  createRoot(container).render(
    <StrictMode>
      <Root />
    </StrictMode>,
  ),
);
setTimeout(dropShell, SHELL_LAST_MS);
