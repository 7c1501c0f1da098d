import GridOnIcon from '@mui/icons-material/GridOn';
import { AccessMatrixList } from './AccessMatrixList';

// A list only: the matrix is derived from access rules, identifiers and devices, and edited there.
export default { list: AccessMatrixList, icon: GridOnIcon };
