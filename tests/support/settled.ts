/**
 * Resolves after one turn of the event loop, when every promise that can settle without a timer or
 * I/O has settled (the microtasks all run before the turn ends). With the work under test held on a
 * promise and the rest in memory, it says "whatever was going to happen meanwhile has happened", so
 * a test can check what did not. Never a stand-in for waiting on a socket, a process or a timer.
 */
export const settled = () => new Promise<void>((resolve) => setImmediate(resolve));
