import { AsyncLocalStorage } from 'node:async_hooks';

/** The transport a caller's write came through, where it must be recorded (CONTRACT §20: agent writes carry `data.via`). */
export type Via = 'mcp';

const current = new AsyncLocalStorage<Via>();

export const runVia = <T>(via: Via, work: () => T): T => current.run(via, work);

export const currentVia = (): Via | undefined => current.getStore();
