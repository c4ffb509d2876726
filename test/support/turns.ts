/**
 * Counts the event loop's turns (one setImmediate callback each) until
 * stopped: how often other work, such as an evaluate, could have run while
 * a sliced operation went on.
 */
export function countTurns(): { stop(): number } {
  let turns = 0;
  let going = true;
  const tick = (): void => {
    turns += 1;
    if (going) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop() {
      going = false;
      return turns;
    },
  };
}
