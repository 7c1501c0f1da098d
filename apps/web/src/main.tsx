/**
 * The console starts after the first paint of index.html's shell. A module script runs as soon as
 * the document is parsed, which can be before the browser's first frame: the console's scripts
 * (a second or more of a phone's CPU) would then hold the shell back until they are done. A page
 * in the background paints no frame, so it starts at once.
 *
 * Nothing of the console is fetched before that frame either (index.html has no preload links):
 * Lighthouse counts every script that has arrived by the first paint as needed for it, so scripts
 * preloaded beside the document made a phone's simulated first paint wait for the whole console
 * (2.6 s against 1 s). The sign-in page's chunks are asked for together with the console's start,
 * so that page still costs one round trip after the entry, not two.
 */
const start = () => {
  void import('./boot');
  // The shell shows the sign-in form to whoever has no session (index.html's script).
  const shell = document.getElementById('shell');
  if (shell && !shell.classList.contains('console')) void import('./pages/LoginPage');
};
if (document.visibilityState === 'visible') requestAnimationFrame(() => setTimeout(start, 0));
else start();
