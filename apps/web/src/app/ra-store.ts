import { localStorageStore } from 'ra-core';

/**
 * react-admin's store (list preferences, minified menu, theme mode), shared by the sign-in pages
 * and the console so both show the same theme.
 */
export const raStore = localStorageStore('1', '.atrium');
