import FactCheckIcon from '@mui/icons-material/FactCheck';
import { MusterPage } from './MusterPage';

/** The muster list, mounted as its own area at /emergency-muster (the emergency menu section). */
export default { list: MusterPage, icon: FactCheckIcon };
