import LabelIcon from '@mui/icons-material/Label';
import { editOrAdd } from '../../app/kit/RecordPage';
import { MarkerCreate, MarkerEdit, MarkerList } from './MarkerPages';

export default { list: MarkerList, edit: editOrAdd(MarkerEdit, MarkerCreate), create: MarkerCreate, icon: LabelIcon };
