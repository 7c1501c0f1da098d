import EventNoteIcon from '@mui/icons-material/EventNote';
import { editOrAdd } from '../../app/kit/RecordPage';
import { ReservationCreate, ReservationEdit, ReservationList } from './ReservationPages';

export default {
  list: ReservationList,
  edit: editOrAdd(ReservationEdit, ReservationCreate),
  create: ReservationCreate,
  icon: EventNoteIcon,
};
