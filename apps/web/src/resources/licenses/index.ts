import { LicensesPage } from './LicensesPage';

export default { list: LicensesPage };
