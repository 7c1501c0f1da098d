import PollIcon from '@mui/icons-material/Poll';
import { AnnounceResponsesPage } from './AnnounceResponsesPage';

/** /announces/response: the results of the polls (its own area, so the menu and the route exist). */
export default { list: AnnounceResponsesPage, icon: PollIcon };
