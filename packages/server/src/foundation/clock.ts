/** Milliseconds since the epoch; injected so that tests control time instead of sleeping. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
