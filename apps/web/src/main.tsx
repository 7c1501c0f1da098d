import { validateWithoutEval } from '@atrium/contract';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Root } from './Root';

// The console runs under a CSP without 'unsafe-eval' (the server's CONSOLE_CSP).
validateWithoutEval();

const container = document.getElementById('root');
if (!container) throw new Error('no #root element');
createRoot(container).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
