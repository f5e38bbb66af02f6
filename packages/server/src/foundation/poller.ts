/**
 * A background loop over claimed work: every `pollMs` it runs rounds until one comes back less
 * than full (a full round means more may be due, so it goes again at once). Timers are unref'd;
 * `stop` waits for the round in progress, so its outcomes are recorded before shutdown.
 */
export function createPoller(options: {
  /** One round: claims what is due and handles it; resolves with how many it claimed. */
  runOnce: () => Promise<number>;
  batchSize: number;
  onError: (error: unknown) => void;
}) {
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;
  let running = false;

  function schedule(delayMs: number, pollMs: number): void {
    timer = setTimeout(() => {
      round = (async () => {
        try {
          let full = true;
          while (running && full) full = (await options.runOnce()) >= options.batchSize;
        } catch (error) {
          options.onError(error);
        }
      })();
      void round.then(() => {
        if (running) schedule(pollMs, pollMs);
      });
    }, delayMs);
    timer.unref();
  }

  return {
    /** Polls every `pollMs`, starting at once. */
    start(pollMs: number): void {
      if (running) return;
      running = true;
      schedule(0, pollMs);
    },

    /** Stops polling and waits for the round in progress. */
    async stop(): Promise<void> {
      running = false;
      clearTimeout(timer);
      await round;
    },
  };
}
