import { Alert, AlertTitle, Box, Button } from '@mui/material';
import { useTranslate } from 'ra-core';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { isChunkLoadError } from '../app/lazy';
import { useDropShell } from '../app/shell';

function LoadError({ chunk }: { chunk: boolean }) {
  const translate = useTranslate();
  useDropShell();
  return (
    <Box sx={{ p: 4, maxWidth: 640, mx: 'auto' }}>
      <Alert
        severity="error"
        action={
          <Button color="inherit" onClick={() => window.location.reload()}>
            {translate('app.reload')}
          </Button>
        }
      >
        <AlertTitle>{translate(chunk ? 'app.chunk_error' : 'errors.default')}</AlertTitle>
        {chunk ? translate('app.chunk_error_hint') : null}
      </Alert>
    </Box>
  );
}

/** Catches a page part that failed to load (spec core §8: ChunkLoadError) and offers a reload. */
export class ChunkErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }

  override render() {
    return this.state.error ? <LoadError chunk={isChunkLoadError(this.state.error)} /> : this.props.children;
  }
}
