/**
 * A queue of async work: each piece handed to it starts once the piece before has settled, whatever its outcome,
 * and the caller gets its own piece's result or error.
 */
export type OneAtATime = <T>(work: () => Promise<T>) => Promise<T>;

export function oneAtATime(): OneAtATime {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const result = last.then(work);
    last = result.catch(() => undefined);
    return result;
  };
}
