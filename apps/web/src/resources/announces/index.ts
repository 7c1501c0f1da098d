import AnnouncementIcon from '@mui/icons-material/Announcement';
import { editOrAdd } from '../../app/kit/RecordPage';
import { AnnounceList } from './AnnounceList';
import { AnnounceCreate, AnnounceEdit } from './AnnouncePages';

export default { list: AnnounceList, edit: editOrAdd(AnnounceEdit, AnnounceCreate), create: AnnounceCreate, icon: AnnouncementIcon };
