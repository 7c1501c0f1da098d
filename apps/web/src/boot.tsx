import { validateWithoutEval } from '@atrium/contract';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from './app/locale';
import { dropShell, SHELL_LAST_MS } from './app/shell';
import { Root } from './Root';

// The console runs under a CSP without 'unsafe-eval' (the server's CONSOLE_CSP).
validateWithoutEval();

const container = document.getElementById('root');
if (!container) throw new Error('no #root element');
// English is at hand; another language is rendered once its texts have arrived. The first render
// is a transition: React then renders in slices of a few milliseconds and lets the browser in
// between, where a render in one go held a phone's main thread for a third of a second at a time
// (Lighthouse's blocking time). The shell stays up until the page is there, so nothing shows early.
void i18nReady.then(() => {
  const root = createRoot(container);
  startTransition(() =>
    root.render(
      <StrictMode>
        <Root />
      </StrictMode>,
    ),
  );
});
setTimeout(dropShell, SHELL_LAST_MS);
