import EventAvailableIcon from '@mui/icons-material/EventAvailable';
import { editOrAdd } from '../../app/kit/RecordPage';
import { AmenityCreate, AmenityEdit, AmenityList } from './AmenityPages';

export default { list: AmenityList, edit: editOrAdd(AmenityEdit, AmenityCreate), create: AmenityCreate, icon: EventAvailableIcon };
