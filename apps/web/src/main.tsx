/**
 * The console starts after the first paint of index.html's shell. A module script runs as soon as
 * the document is parsed, which can be before the browser's first frame: the console's scripts
 * (a second or more of a phone's CPU) would then hold the shell back until they are done. A page
 * in the background paints no frame, so it starts at once.
 */
const start = () => void import('./boot');
if (document.visibilityState === 'visible') requestAnimationFrame(() => setTimeout(start, 0));
else start();
