import { MailTemplatesPage } from './MailTemplatesPage';

export default { list: MailTemplatesPage };
