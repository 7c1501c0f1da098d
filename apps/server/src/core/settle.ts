/**
 * Whether `work` finishes within `ms`: true when it does, false when the time runs out first (the
 * work goes on; nobody waits for it any more). A rejection of `work` is passed on. The timer never
 * keeps the process alive.
 */
export async function finishesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
