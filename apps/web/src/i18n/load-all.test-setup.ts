import { loadRussian } from './index';

await loadRussian();
