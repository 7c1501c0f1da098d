// @ts-check
// The device plane thread's first file (host.ts starts it): plain JavaScript, so that it starts the same
// under `node --import tsx` (npm start), vitest and plain node; it loads the TypeScript of the device plane
// server through tsx's API, which compiles it in this thread whatever the parent was started with.
import { tsImport } from 'tsx/esm/api';

await tsImport('./thread.ts', import.meta.url);
