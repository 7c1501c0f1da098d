import CampaignIcon from '@mui/icons-material/Campaign';
import { editOrAdd } from '../../app/kit/RecordPage';
import { EmergencyAlertCreate, EmergencyAlertEdit, EmergencyAlertList } from './EmergencyAlertPages';

export default {
  list: EmergencyAlertList,
  edit: editOrAdd(EmergencyAlertEdit, EmergencyAlertCreate),
  create: EmergencyAlertCreate,
  icon: CampaignIcon,
};
